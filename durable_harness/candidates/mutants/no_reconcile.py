"""no-reconcile: an operation with an unknown outcome is left UNKNOWN and the job moves on."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("no-reconcile", resolve_unknowns=False)
