"""publish-without-approval: a draft awaiting approval is published at once, with no approval looked for."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("publish-without-approval", require_approval=False)
