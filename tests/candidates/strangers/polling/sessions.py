"""The sessions API as this control plane uses it: by polling, never by following the event stream.

It creates one session per job version (with the job in its metadata), finds it again by that
metadata, reads it, answers function calls with an idempotency key, sends user messages, reads the
turns and pages through every item. Errors are sorted into three kinds the engine acts on:
``Transient`` (try again later: a connection error, a timeout, 408/409/429/5xx), ``NotPending``
(400 "Unknown pending tool call": read the session before anything else) and ``Refused`` (any other
4xx: the request itself is wrong and will not succeed when repeated). A 401 is none of these: the API
key was refused, which is recorded at once, and no request goes out with that key again
(``CredentialRevoked``, raised before sending as well).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import openai
from openai.types.beta.agent_session_item import FunctionCallOutputItemResource

from tests.candidates.strangers.polling.credentials import CredentialRevoked, Credentials

__all__ = ["CredentialRevoked", "NotPending", "Refused", "SessionsApi", "Transient", "arguments_of"]

CLOCK_SLACK_S = 60.0


class Transient(Exception):
    """The request may or may not have been applied; repeating it (with the same key) is the fix."""


class NotPending(Exception):
    """The API says the call is not pending (any more)."""


class Refused(Exception):
    """A definite 4xx refusal."""


def _classify(exc: Exception) -> Transient | NotPending | Refused:
    if isinstance(exc, openai.APIConnectionError):
        return Transient(f"no answer from the sessions API: {type(exc).__name__}")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        text = str(exc)
        if status == 400 and "unknown pending tool call" in text.lower():
            return NotPending(text)
        if status in (408, 409, 425, 429) or status >= 500:
            return Transient(f"sessions API answered {status}")
        return Refused(f"sessions API refused ({status}): {text}")
    return Refused(f"unusable answer from the sessions API: {type(exc).__name__}: {exc}")


def arguments_of(raw: object) -> dict[str, Any]:
    """A function call's arguments as a dict (the API may give an object or a JSON string)."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return {}
    return dict(raw) if isinstance(raw, Mapping) else {}


class SessionsApi:
    """Thin, typed wrappers over ``client.beta.agents`` that raise the errors above."""

    def __init__(self, client: openai.OpenAI, credentials: Credentials) -> None:
        self._agents = client.beta.agents
        # A session create cannot be deduplicated (no Idempotency-Key): the SDK must never resend it.
        self._creates = client.with_options(max_retries=0).beta.agents
        self._credentials = credentials

    def _error(self, exc: openai.OpenAIError) -> Exception:
        if isinstance(exc, openai.APIStatusError) and exc.status_code == 401:
            return self._credentials.refused("openai", "401 from the sessions API")
        return _classify(exc)

    def _ready(self) -> None:
        self._credentials.check("openai")

    def create(self, *, environment: Mapping[str, Any], agent: Mapping[str, Any], task: str,
               metadata: Mapping[str, str]) -> str:
        self._ready()
        try:
            sessions: Any = self._creates.sessions  # the params are TypedDicts; ours are plain dicts
            session = sessions.create(environment=dict(environment), agent=dict(agent), input=task,
                                      metadata=dict(metadata))
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc
        return str(session.id)

    def find(self, metadata: Mapping[str, str], *, requested_at: float) -> str | None:
        """The oldest session carrying exactly this metadata.

        Filtered listings may lag behind a new session (the SDK says new sessions "may take time to
        appear in filtered results"), so an empty filtered listing proves nothing: the unfiltered
        listing is read too, newest first, back to a little before ``requested_at`` (unix seconds,
        when the create went out), each session's metadata checked.
        """
        created_since = requested_at - CLOCK_SLACK_S
        def matches(session: Any) -> bool:
            return all((session.metadata or {}).get(k) == v for k, v in metadata.items())

        self._ready()
        try:
            found = [(s.created_at, s.id) for s in self._agents.sessions.list(metadata=dict(metadata), order="asc",
                                                                              limit=100) if matches(s)]
            if not found:
                for session in self._agents.sessions.list(order="desc", limit=100):
                    if session.created_at < created_since:
                        break
                    if matches(session):
                        found.append((session.created_at, session.id))
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc
        return str(min(found)[1]) if found else None

    def retrieve(self, session_id: str) -> Any:
        self._ready()
        try:
            return self._agents.sessions.retrieve(session_id)
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc

    def send_events(self, session_id: str, events: Iterable[Mapping[str, Any]], idempotency_key: str) -> None:
        self._ready()
        try:
            self._agents.sessions.events.create(session_id, events=[dict(e) for e in events],  # type: ignore[misc]
                                                idempotency_key=idempotency_key)
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc

    def answer(self, session_id: str, *, turn_id: str, call_id: str, answer: Mapping[str, Any],
               idempotency_key: str) -> None:
        event: dict[str, Any] = {"type": "agent.session.input.tool_result", "turn_id": turn_id, "call_id": call_id,
                                 "success": bool(answer.get("success"))}
        if event["success"]:
            event["output"] = json.dumps(answer.get("output", {}), sort_keys=True)
        else:
            event["error"] = str(answer.get("error", "failed"))
        self.send_events(session_id, [event], idempotency_key)

    def say(self, session_id: str, text: str, idempotency_key: str) -> None:
        message = {"type": "agent.session.input.message",
                   "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}]}
        self.send_events(session_id, [message], idempotency_key)

    def declare_tools(self, session_id: str, tools: list[dict[str, Any]]) -> None:
        """Replace the session's tools (they count from the agent's next thought)."""
        self._ready()
        try:
            sessions: Any = self._agents.sessions  # the params are TypedDicts; ours are plain dicts
            sessions.update(session_id, agent={"tools": tools})
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc

    def cancel_turn(self, session_id: str, idempotency_key: str) -> None:
        self.send_events(session_id, [{"type": "agent.session.input.cancel"}], idempotency_key)

    def answered_calls(self, session_id: str, call_ids: Iterable[str]) -> set[str]:
        """Which of these calls have a result in the session's items (every page, oldest first)."""
        wanted = set(call_ids)
        if not wanted:
            return set()
        found: set[str] = set()
        self._ready()
        try:
            for item in self._agents.sessions.items.list(session_id, order="asc", limit=100):
                if isinstance(item, FunctionCallOutputItemResource) and item.call_id in wanted:
                    found.add(item.call_id)
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc
        return found

    def latest_root_turn(self, session_id: str) -> Any | None:
        """The newest turn of the session's own agent (subagents' turns are not the task's)."""
        self._ready()
        try:
            for turn in self._agents.sessions.turns.list(session_id, order="desc", limit=20):
                if turn.subagent_id is None:
                    return turn
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc
        return None

    def artifact_bytes(self, session_id: str, artifact_id: str) -> bytes:
        self._ready()
        try:
            return self._agents.sessions.artifacts.content(artifact_id, session_id=session_id).content
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc

    def workspace_files(self, environment_id: str, directory: str) -> dict[str, int]:
        """Live files under a directory of the environment: path -> size in bytes, every page."""
        self._ready()
        try:
            return {f.path: f.size_bytes
                    for f in self._agents.environments.files.list(environment_id, path=directory, limit=100)}
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc
