"""The sessions API through the `openai` SDK, as plain dicts.

Reads use a client with the scenario's SDK retries (`OPENAI_MAX_RETRIES`). Writes never let the
SDK retry on its own: a session create cannot be deduplicated at all, and a retried input event
must pass the write guard again (a cancellation may have been acknowledged in between); our own
loop resends under the same idempotency key.
"""

from __future__ import annotations

from typing import Any

import openai

from .httpio import openai_client
from .settings import Clock, Settings


def _dump(obj: Any) -> dict[str, Any]:
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json", by_alias=True)
    return dict(obj) if isinstance(obj, dict) else {}


class AgentAPI:
    """The few sessions-API calls the control plane makes."""

    def __init__(self, settings: Settings, clock: Clock) -> None:
        self.clock = clock
        timeout = clock.timeout(30.0)
        self.reader = openai_client(settings.openai_base_url, settings.openai_api_key,
                                    settings.openai_max_retries, timeout)
        self.writer = self.reader.with_options(max_retries=0)
        self.sessions = self.reader.beta.agents.sessions
        self.write_sessions = self.writer.beta.agents.sessions

    # -- sessions -----------------------------------------------------------------------------

    def create_session(self, *, environment: str, tools: list[dict[str, Any]], task: str,
                       job_id: str, version: str) -> str:
        created = self.write_sessions.create(  # type: ignore[call-overload]
            environment={"type": environment},  # type: ignore[arg-type]
            agent={"model": "gpt-5.1", "instructions": "You are a careful agent. Do the job's steps in order.",
                   "tools": tools},  # type: ignore[typeddict-item]
            input=task,
            metadata={"job_id": job_id, "task_version": version},
        )
        return str(created.id)

    def find_sessions(self, job_id: str, version: str) -> list[dict[str, Any]]:
        page = self.sessions.list(metadata={"job_id": job_id, "task_version": version},
                                  order="asc", limit=100)
        return [_dump(s) for s in page]

    def retrieve(self, session_id: str) -> dict[str, Any]:
        return _dump(self.sessions.retrieve(session_id))

    def turns(self, session_id: str) -> list[dict[str, Any]]:
        """Every turn of the session, oldest first (the SDK pages on as we iterate)."""
        turns = [_dump(t) for t in self.sessions.turns.list(session_id, order="asc", limit=100)]
        return turns

    # -- input events (writes) ----------------------------------------------------------------

    def send(self, session_id: str, events: list[dict[str, Any]], key: str) -> None:
        self.write_sessions.events.create(session_id, events=events,  # type: ignore[arg-type]
                                          idempotency_key=key)

    # -- the coding workload's sandbox --------------------------------------------------------

    def artifact_bytes(self, session_id: str, artifact_id: str) -> bytes:
        return self.sessions.artifacts.content(artifact_id, session_id=session_id).content

    def environment_paths(self, environment_id: str, path: str = "/workspace") -> set[str]:
        files = self.reader.beta.agents.environments.files.list(environment_id, path=path, limit=100)
        return {str(_dump(f).get("path", "")) for f in files}


def is_unknown_pending(exc: BaseException) -> bool:
    """The API's 400 `Unknown pending tool call`: that call is not pending (any more)."""
    return isinstance(exc, openai.BadRequestError) and "unknown pending tool call" in str(exc).lower()
