"""webhook-unverified: acts on webhooks without checking their signature and timestamp."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("webhook-unverified", "acts on webhooks without verifying their signature", verify_webhooks=False)
