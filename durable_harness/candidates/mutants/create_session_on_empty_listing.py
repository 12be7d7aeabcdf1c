"""create-session-on-empty-listing: a session whose create was lost is created again as soon as one filtered listing comes back empty (listings lag)."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("create-session-on-empty-listing", wait_for_listing=False)
