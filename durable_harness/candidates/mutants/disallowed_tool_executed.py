"""disallowed-tool-executed: every tool of the workload is declared to the agent and executed, allowed or not."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("disallowed-tool-executed", enforce_allowed_tools=False)
