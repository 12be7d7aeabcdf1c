"""retry-after-401: a refused credential (401) is tried again, and the job goes on as if nothing happened."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("retry-after-401", stop_on_refused_credentials=False)
