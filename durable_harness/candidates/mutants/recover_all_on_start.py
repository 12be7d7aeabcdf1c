"""recover-all-on-start: a (re)started instance takes over every unfinished job at once, even one
another worker holds and is working (as a framework that recovers every pending workflow on
start-up, whoever runs it)."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("recover-all-on-start", spare_live_leases_on_start=False)
