"""webhook-unverified: acts on webhooks without checking their signature and timestamp."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("webhook-unverified", verify_webhooks=False)
