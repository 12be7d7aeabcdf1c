"""The sessions API through the env's ``openai`` client, every call's outcome classified.

The client is used with the SDK's own retries off (``with_options(max_retries=0)``), whatever the
scenario gave: a session create has no idempotency key, so only this control plane, after reading
the listing, may decide to send one again. Every input event carries an idempotency key, so a
resend of the same events is applied once.

Outcomes reuse :class:`wordpress.Answer`: a 401 is ``revoked`` (recorded at once), 400/403/404/422
are ``definite``, 409/429/5xx and transport errors ``unknown``, a refused connection ``down``.
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable

import httpx
import openai

from .wordpress import Answer

DEFINITE = {400, 403, 404, 422}


def _dump(model: Any) -> dict[str, Any]:
    if hasattr(model, "model_dump"):
        return model.model_dump(mode="json")
    return dict(model)


class Sessions:
    """Sessions, items, turns, input events, artifacts and sandbox files."""

    def __init__(self, env: Any, on_revoked: Callable[[str], None]) -> None:
        self.client = env.openai.with_options(max_retries=0)
        self.api = self.client.beta.agents
        self.on_revoked = on_revoked

    def _call(self, fn: Callable[[], Any]) -> tuple[Answer, Any]:
        try:
            return Answer("ok"), fn()
        except openai.APIStatusError as exc:
            status = exc.status_code
            body = exc.body if isinstance(exc.body, dict) else {}
            code = getattr(exc, "code", None) or (body.get("code") if body else None)
            message = str(getattr(exc, "message", "") or exc)
            if status == 401:
                self.on_revoked("openai")
                kind = "revoked"
            elif status in DEFINITE:
                kind = "definite"
            else:
                kind = "unknown"
            retry = exc.response.headers.get("retry-after") if exc.response is not None else None
            try:
                retry_after = float(retry) if retry else None
            except ValueError:
                retry_after = None
            return Answer(kind, status, code, body, retry_after, detail=message), None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__
            if isinstance(cause, httpx.ConnectError):
                return Answer("down", detail=f"connection refused: {cause}"), None
            return Answer("unknown", detail=f"{type(exc).__name__}: {exc}"), None

    # --- sessions -------------------------------------------------------------------------------
    def create(self, *, environment: str, tools: list[dict[str, Any]], task: str,
               metadata: dict[str, str]) -> tuple[Answer, str | None]:
        answer, session = self._call(lambda: self.api.sessions.create(
            environment={"type": environment},
            agent={"model": "gpt-5.1", "instructions": "You are a careful agent.", "tools": tools},
            input=task, metadata=metadata))
        return answer, (session.id if session is not None else None)

    def find(self, metadata: dict[str, str]) -> tuple[Answer, list[str]]:
        """The ids of the sessions carrying ``metadata``, oldest first (every page)."""
        def run() -> list[str]:
            return [s.id for s in self.api.sessions.list(metadata=metadata, order="asc", limit=100)]
        answer, ids = self._call(run)
        return answer, ids or []

    def retrieve(self, session_id: str) -> tuple[Answer, dict[str, Any] | None]:
        answer, session = self._call(lambda: self.api.sessions.retrieve(session_id))
        return answer, (_dump(session) if session is not None else None)

    def send(self, session_id: str, events: list[dict[str, Any]], idem_key: str) -> Answer:
        answer, _ = self._call(lambda: self.api.sessions.events.create(
            session_id, events=events, idempotency_key=idem_key))
        return answer

    def items(self, session_id: str) -> tuple[Answer, list[dict[str, Any]]]:
        """Every item of the session, oldest first: the SDK pages on as it iterates."""
        def run() -> list[dict[str, Any]]:
            return [_dump(i) for i in self.api.sessions.items.list(session_id, order="asc", limit=100)]
        answer, items = self._call(run)
        return answer, items or []

    def root_turns(self, session_id: str) -> tuple[Answer, list[dict[str, Any]]]:
        """The root agent's turns (a subagent's turn is not the job's), oldest first."""
        def run() -> list[dict[str, Any]]:
            turns = [_dump(t) for t in self.api.sessions.turns.list(session_id, order="asc", limit=100)]
            return [t for t in turns if not t.get("subagent_id")]
        answer, turns = self._call(run)
        return answer, turns or []

    # --- the coding workload's sandbox --------------------------------------------------------------
    def artifact_digest(self, session_id: str,
                        artifact_id: str) -> tuple[Answer, tuple[str, int] | None]:
        """The sha256 (hex) and size of an artifact's bytes as stored now."""
        def run() -> tuple[str, int]:
            content = self.api.sessions.artifacts.content(artifact_id, session_id=session_id)
            data = content.content if hasattr(content, "content") else bytes(content)
            return hashlib.sha256(data).hexdigest(), len(data)
        return self._call(run)

    def sandbox_files(self, environment_id: str) -> tuple[Answer, list[dict[str, Any]]]:
        def run() -> list[dict[str, Any]]:
            return [_dump(f) for f in self.api.environments.files.list(environment_id, path="/workspace")]
        answer, files = self._call(run)
        return answer, files or []
