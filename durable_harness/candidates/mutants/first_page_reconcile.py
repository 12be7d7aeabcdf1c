"""first-page-reconcile: a reconciling lookup reads only the first page of the listing, so on a site
whose listing is not filtered by operation key it misses its own write on page 2 and writes again."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("first-page-reconcile", page_all_lookups=False)
