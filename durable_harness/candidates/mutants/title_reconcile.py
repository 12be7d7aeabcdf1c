"""title-reconcile: a write with an unknown outcome is looked up by its title (or file name) instead of
its operation key, so on a busy site it adopts someone else's post or upload of the same name."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("title-reconcile", reconcile_by_operation_key=False)
