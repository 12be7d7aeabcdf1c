"""cancel-inflight-retry: after a cancellation the write that was in flight is retried (a write), not settled by a lookup."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("cancel-inflight-retry", no_writes_after_cancel=False)
