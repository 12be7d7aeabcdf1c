"""sdk-retries-create: the session create goes through a client with the SDK's own retries on; after a lost answer the SDK sends the create again, without an Idempotency-Key."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("sdk-retries-create", no_sdk_retry_of_unkeyed_writes=False)
