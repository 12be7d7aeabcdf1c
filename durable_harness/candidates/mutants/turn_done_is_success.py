"""turn-done-is-success: takes the agent's completed turn as the job's success."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("turn-done-is-success", judge_by_ledger=False)
