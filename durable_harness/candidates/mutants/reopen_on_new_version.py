"""reopen-on-new-version: a new task version submitted after the user cancelled the job is worked as if nothing had happened."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("reopen-on-new-version", cancel_survives_new_version=False)
