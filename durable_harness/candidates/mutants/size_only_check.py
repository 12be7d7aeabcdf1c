"""size-only-check: a delivered artifact is checked by its size, not by the digest of its bytes."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("size-only-check", verify_artifact_digest=False)
