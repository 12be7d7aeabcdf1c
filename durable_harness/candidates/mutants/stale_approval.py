"""stale-approval: an approval seen once is trusted for good; its revocation or expiry goes unnoticed."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("stale-approval", recheck_approval=False)
