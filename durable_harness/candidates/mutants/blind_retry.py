"""blind-retry: a write whose response was lost is sent again without looking it up first."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("blind-retry", reconcile_before_retry=False)
