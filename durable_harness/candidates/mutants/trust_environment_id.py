"""trust-environment-id: takes the same environment id for the same sandbox, so it accepts test
results from before the sandbox was replaced."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("trust-environment-id", verify_environment=False)
