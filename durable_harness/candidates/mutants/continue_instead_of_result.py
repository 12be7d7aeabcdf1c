"""continue-instead-of-result: on resume, sends "continue" instead of answering the pending call."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("continue-instead-of-result", answer_pending_calls=False)
