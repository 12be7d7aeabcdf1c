"""reopen-after-cancel: a cancellation is kept in memory only; after a restart the job is picked up again."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("reopen-after-cancel", persist_cancel=False)
