"""first-page-only: rebuilds state from the first page of the session's items only."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("first-page-only", page_all_items=False)
