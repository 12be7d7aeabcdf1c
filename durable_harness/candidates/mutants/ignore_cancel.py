"""ignore-cancel: the user's cancellation is acknowledged, and the job goes on."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("ignore-cancel", honour_cancel=False)
