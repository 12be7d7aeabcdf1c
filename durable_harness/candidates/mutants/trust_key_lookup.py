"""trust-key-lookup: takes whatever the operation-key lookup answers as its own, without checking
the key of what came back. A real site compares keys in its database's collation, so another job's
post whose key differs only in letter case is found too, and adopted."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("trust-key-lookup", exact_key_match=False)
