"""error-means-not-applied: a 5xx answer to a write is taken as "not applied" and the write is sent
again without a lookup; a proxy's 502 after WordPress committed the draft makes a second draft."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("error-means-not-applied", server_error_is_unknown=False)
