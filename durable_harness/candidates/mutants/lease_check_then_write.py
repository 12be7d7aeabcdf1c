"""lease-check-then-write: the lease is checked, and the write sent after the lock is let go; a pause in between lets another worker take over, and the late write lands on its work."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("lease-check-then-write", hold_write_lock=False)
