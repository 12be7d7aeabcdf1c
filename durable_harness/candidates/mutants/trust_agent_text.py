"""trust-agent-text: the job's outcome is read from the agent's last message ("the draft is ready"), not from the ledger and the world."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("trust-agent-text", ignore_agent_text=False)
