"""What this control plane may still do for a job, asked afresh from the store before every write.

``cancel`` and ``submit`` may arrive at any moment, even while a ``step()`` of this same instance
waits for a request's answer (in-process they are called from inside that request). They only write
durable flags to the store; nothing held in memory is trusted instead. So every write — a WordPress
request, a tool result, a user message, a session created or updated — is preceded by
``Authority.before_write``, which reads the job's row again:

- a job cancelled by its user, or superseded by a newer task version, may not write at all
  (``JobStopped``); what remains for it is reads and the cancel of the session's turn;
- a tool call may be executed only while its tool is among the job's allowed tools as they are now
  (``ToolNotAllowed``).
"""

from __future__ import annotations

from tests.candidates.strangers.polling.records import Job
from tests.candidates.strangers.polling.store import Store

__all__ = ["Authority", "JobStopped", "ToolNotAllowed"]


class JobStopped(Exception):
    """The job was cancelled or superseded: no write may go out for it any more."""


class ToolNotAllowed(Exception):
    """The tool is not among the job's allowed tools (as they are now)."""

    def __init__(self, tool: str) -> None:
        super().__init__(f"the tool '{tool}' is not among this job's allowed tools")
        self.tool = tool


class Authority:
    """Reads the job's authority from the store, right when it is needed."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def current(self, key: tuple[str, str]) -> Job:
        job = self._store.job(*key)
        if job is None:  # pragma: no cover - a job is never deleted
            raise JobStopped(f"job {key[0]} v{key[1]} is unknown")
        return job

    def tool_allowed(self, key: tuple[str, str], tool: str) -> bool:
        return tool in self.current(key).allowed_tools

    def before_write(self, key: tuple[str, str], tool: str | None = None) -> None:
        """Raise unless a write for this job (performing ``tool``, if given) is allowed right now."""
        job = self.current(key)
        if job.cancel_requested:
            raise JobStopped(f"job {job.job_id} was cancelled by its user")
        if job.superseded_by is not None:
            raise JobStopped(f"job {job.job_id} v{job.task_version} was superseded by v{job.superseded_by}")
        if tool is not None and tool not in job.allowed_tools:
            raise ToolNotAllowed(tool)
