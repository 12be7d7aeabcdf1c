"""lease-not-renewed: the lease is taken once and never renewed or checked again; it runs out, another worker takes the job over, and this one writes on."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("lease-not-renewed", "takes its lease once and never renews or checks it: it writes on after a takeover",
                  renew_leases=False)
