"""no-lease: every worker works every job; nothing says which one may write."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("no-lease", leases=False)
