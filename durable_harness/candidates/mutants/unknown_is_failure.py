"""unknown-is-failure: a timeout or reset is taken as proof that the write did not happen."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("unknown-is-failure", unknown_is_not_failure=False)
