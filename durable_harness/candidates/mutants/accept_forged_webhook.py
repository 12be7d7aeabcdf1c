"""accept-forged-webhook: a webhook that fails verification is ignored, but answered 200 as if it were genuine."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("accept-forged-webhook", refuse_forged_webhooks=False)
