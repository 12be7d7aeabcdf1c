"""publish-without-approval: a draft awaiting approval is published at once, with no approval looked for."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("publish-without-approval", "publishes a draft without an approval in force", require_approval=False)
