"""lease-not-renewed: the lease is taken once and never renewed or checked again; it runs out, another worker takes the job over, and this one writes on."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("lease-not-renewed", renew_leases=False)
