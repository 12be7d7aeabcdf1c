"""new-session-on-restart: after a restart, starts the job over in a new session."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("new-session-on-restart", resume_existing_session=False)
