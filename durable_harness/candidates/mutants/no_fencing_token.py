"""no-fencing-token: writes carry no fencing token; a write delivered after its sender died and another worker took over lands, even at a site that checks tokens."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("no-fencing-token", fencing_token=False)
