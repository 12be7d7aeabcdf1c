"""first-page-only: rebuilds state from the first page of the session's items only."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("first-page-only", "reads only the first page of the session's items when it rebuilds state", page_all_items=False)
