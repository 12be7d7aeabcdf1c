"""callid-dedupe: side effects are keyed on the call id; the same action asked again under a new call id (a platform retry) is done again."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("callid-dedupe", key_by_business_action=False)
