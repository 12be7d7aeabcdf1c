"""What the gate saw of a sessions API by URL, and what ground truth reads from it at the end
(``_upstream_openai``): sessions, function calls and their answers, in the sessions fake's truth
shape, so that every checker reads it unchanged.

Every session and function call in an answer or a stream's event is noted as it passes the gate,
with the run's time; a call's business role, payload and watermarks come from the call itself
(``Workload.call_truth``), its job and version from its session's metadata, resolved when read (a
call may pass before its session). The candidate's tool results are noted as they reach the gate;
whether each was accepted is what the upstream's items say at the end.

What it deliberately does not do: talk to the upstream (``_upstream_openai`` reads and hands over).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

__all__ = ["SessionsRecord", "session_of"]

CallTruth = Callable[[str, Mapping[str, Any]], Any]


class SessionsRecord:
    def __init__(self, clock: Any, jobs: Iterable[tuple[str, str]], call_truth: CallTruth) -> None:
        self._clock = clock
        self._jobs = tuple(sorted(set(jobs)))  # (job_id, task_version) of every version the run knows
        self.job_ids = tuple(sorted({job_id for job_id, _ in self._jobs}))
        self._call_truth = call_truth
        self._lock = threading.Lock()  # the stream readers' threads note what they saw too
        self._sessions: dict[str, dict[str, Any]] = {}
        self._calls: dict[str, dict[str, Any]] = {}
        self._answered_s: dict[str, float] = {}  # call id -> the run's time its result reached the gate

    # -- read ------------------------------------------------------------------------------------
    def session_ids(self) -> list[str]:
        with self._lock:
            return sorted(self._sessions)

    def call_record(self, call_id: str) -> Mapping[str, Any] | None:
        with self._lock:
            call = self._calls.get(call_id)
            return None if call is None else self._record(call)

    def payload_owner(self, sha256: str) -> Mapping[str, Any] | None:
        with self._lock:
            return self._owners()[0].get(sha256)

    def truth(self) -> dict[str, Any]:
        with self._lock:
            calls = sorted(self._calls.values(), key=lambda c: (float(c["issued_at"]), str(c["call_id"])))
            payloads, watermarks = self._owners()
            return {
                "sessions": [dict(s) for _, s in sorted(self._sessions.items())],
                "payloads": dict(sorted(payloads.items())),
                "watermarks": dict(sorted(watermarks.items())),
                "tool_calls": [self._record(c) for c in calls],
                "webhooks": [], "subagents": [], "environments": [], "artifacts": [], "executor": {},
            }

    # -- noted as it passes ------------------------------------------------------------------------
    def observe_json(self, content_type: str, body: bytes, session_id: str | None) -> None:
        """An answer's body, if it is JSON."""
        if not content_type.startswith("application/json"):
            return
        try:
            value = json.loads(body)
        except ValueError:
            return
        self._observe_value(value, session_id)

    def _observe_value(self, value: Any, session_id: str | None) -> None:
        """Every session and function call in an answer (a session, a page of items, a listing),
        each call of the session it was read from."""
        if isinstance(value, list):
            for v in value:
                self._observe_value(v, session_id)
            return
        if not isinstance(value, dict):
            return
        if value.get("object") == "agent.session" and isinstance(value.get("id"), str):
            self._note_session(value)
            session_id = str(value["id"])
        if isinstance(value.get("session_id"), str):
            session_id = str(value["session_id"])
        if value.get("type") == "function_call" and isinstance(value.get("call_id"), str):
            self._note_call(value, session_id)
        for key in ("data", "required_actions", "item", "session"):
            if key in value:
                self._observe_value(value[key], session_id)

    def observe_event(self, event: bytes, session_id: str | None) -> None:
        data = b"".join(line[5:].strip() for line in event.splitlines() if line.startswith(b"data:"))
        if not data:
            return
        try:
            value = json.loads(data)
        except ValueError:
            return
        self._observe_value(value, session_id)

    def _note_session(self, session: Mapping[str, Any], *, turns: Sequence[Mapping[str, Any]] | None = None,
                      user_inputs: list[str] | None = None) -> None:
        raw = session.get("metadata")
        metadata: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
        with self._lock:
            record = self._sessions.setdefault(str(session["id"]), {
                "id": str(session["id"]), "metadata": dict(sorted(metadata.items())), "status": session.get("status"),
                "deleted": False, "created_at": self._clock.now(), "turns": 0, "last_turn_status": None,
                "user_inputs": []})
            record["status"] = session.get("status", record["status"])
            if turns is not None:
                record["turns"] = len(turns)
                record["last_turn_status"] = turns[-1].get("status") if turns else None
            if user_inputs is not None:
                record["user_inputs"] = list(user_inputs)

    def _note_call(self, item: Mapping[str, Any], session_id: str | None) -> None:
        call_id = str(item["call_id"])
        with self._lock:
            known = self._calls.get(call_id)
            if known is not None:
                if session_id and not known["session_id"]:
                    known["session_id"] = session_id
                return
            name = str(item.get("name") or "")
            arguments = item.get("arguments")
            if isinstance(arguments, str):
                try:
                    arguments = json.loads(arguments)
                except ValueError:
                    arguments = {}
            found = self._call_truth(name, arguments if isinstance(arguments, dict) else {})
            self._calls[call_id] = {
                "session_id": session_id or "", "turn_id": str(item.get("turn_id") or ""), "call_id": call_id,
                "name": name, "role": str(getattr(found, "role", "") or ""), "issued_at": self._clock.now(),
                "answered": False, "success": None, "answered_at": None,
                "payload_sha256": tuple(getattr(found, "payload_sha256", ()) or ()),
                "watermarks": tuple(getattr(found, "watermarks", ()) or ())}

    def _record(self, call: Mapping[str, Any]) -> dict[str, Any]:
        """A call as ground truth shows it: with its job and version, from its session's metadata."""
        job_id, version = self._job_of(str(call["session_id"]))
        return {k: v for k, v in call.items() if k not in ("payload_sha256", "watermarks")} | {
            "job_id": job_id, "task_version": version}

    def _job_of(self, session_id: str) -> tuple[str, str]:
        metadata = (self._sessions.get(session_id) or {}).get("metadata") or {}
        if not metadata and len(self._jobs) == 1:  # a call seen before its session: the run's one job
            return self._jobs[0]
        return str(metadata.get("job_id", "")), str(metadata.get("task_version", ""))

    def _owners(self) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, str]]]:
        """Whose payload each digest is, whose watermark each mark is: the first call that carried it."""
        payloads: dict[str, dict[str, Any]] = {}
        watermarks: dict[str, dict[str, str]] = {}
        for call in sorted(self._calls.values(), key=lambda c: (float(c["issued_at"]), str(c["call_id"]))):
            record = self._record(call)
            provenance = {"job_id": record["job_id"], "task_version": record["task_version"], "role": record["role"]}
            for digest in call["payload_sha256"]:
                payloads.setdefault(str(digest), dict(provenance))
            for mark in call["watermarks"]:
                watermarks.setdefault(str(mark), dict(provenance))
        return payloads, watermarks

    def note_input(self, path: str, body: bytes) -> None:
        """The candidate's input events that the upstream took: tool results, as they reached the gate."""
        if not path.rstrip("/").endswith("/events"):
            return
        try:
            value: Any = json.loads(body or b"{}")
        except ValueError:
            return
        events: Any = value.get("events") if isinstance(value, dict) else None
        for event in events if isinstance(events, list) else []:
            if isinstance(event, dict) and event.get("type") == "agent.session.input.tool_result":
                call_id = str(event.get("call_id"))
                with self._lock:
                    self._answered_s.setdefault(call_id, self._clock.now())

    # -- read at the end ---------------------------------------------------------------------------
    def settled(self, session: Mapping[str, Any], items: Sequence[Mapping[str, Any]],
                turns: Sequence[Mapping[str, Any]]) -> None:
        """A session as the upstream holds it at the end, with its items and turns."""
        session_id = str(session["id"])
        inputs = [_text(i) for i in items if i.get("type") == "message" and i.get("role") == "user"]
        self._note_session(session, turns=turns, user_inputs=[t for t in inputs if t is not None])
        for item in items:
            if item.get("type") == "function_call" and isinstance(item.get("call_id"), str):
                self._note_call(item, session_id)
        now = self._clock.now()
        with self._lock:
            for item in items:
                if item.get("type") != "function_call_output":
                    continue
                record = self._calls.get(str(item.get("call_id")))
                if record is None:
                    continue
                record["answered"] = True
                record["success"] = item.get("status") == "completed"
                record["answered_at"] = self._answered_s.get(record["call_id"], now)

    def deleted(self, session_id: str) -> None:
        """A session that is gone at the end (the candidate deleted it): it stays in the record, as deleted."""
        with self._lock:
            if session_id in self._sessions:
                self._sessions[session_id]["deleted"] = True


def _text(item: Mapping[str, Any]) -> str | None:
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict)) or None
    return None


def session_of(path: str) -> str | None:
    """The session a path below ``/agents/sessions/{id}`` is about, if any."""
    parts = [p for p in path.split("/") if p]
    return parts[2] if len(parts) >= 3 and parts[:2] == ["agents", "sessions"] else None


