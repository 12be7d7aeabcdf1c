"""trust-environment-id: takes the same environment id for the same sandbox, so it accepts test
results from before the sandbox was replaced."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("trust-environment-id", "trusts the environment id: accepts results from a replaced sandbox", verify_environment=False)
