"""accept-forged-webhook: a webhook that fails verification is ignored, but answered 200 as if it were genuine."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("accept-forged-webhook", "answers 2xx to webhooks it could not verify", refuse_forged_webhooks=False)
