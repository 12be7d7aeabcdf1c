"""approval-no-digest: an approval for the post counts whatever its content has become since."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("approval-no-digest", approval_bound_to_digest=False)
