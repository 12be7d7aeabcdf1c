"""reopen-on-new-version: a new task version submitted after the user cancelled the job is worked as if nothing had happened."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("reopen-on-new-version", "works a new task version of a job the user cancelled (the cancel is not final)",
                  cancel_survives_new_version=False)
