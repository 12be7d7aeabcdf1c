"""resubmit-on-drop: when the event stream drops, it cancels the turn and submits the task again."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("resubmit-on-drop", read_after_drop=False)
