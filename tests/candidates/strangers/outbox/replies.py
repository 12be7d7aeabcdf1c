"""What the control plane tells the agent: tool results, messages and turn cancels, through the
same outbox discipline as the side effects.

Each input is a row of ``results`` written before it is sent, with the events' exact body and an
idempotency key; a send whose answer was lost is sent again with the same key and body (the API
applies it at most once). A row is ``SENT`` until a 202 makes it ``ACCEPTED``; when the session
no longer waits for its call, the session's items are read (every page) to learn whether the
answer arrived (``ACCEPTED``) or the call was cancelled (``DROPPED``). A 400 "Unknown pending tool
call" refused the result without applying it: the session is read again before anything else.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from .jobs import Job
from .sessions import Sessions
from .store import RESULTS, Store, dumps


def tool_result(call: dict[str, Any], success: bool, payload: dict[str, Any] | str) -> dict[str, Any]:
    """The tool-result event answering ``call``."""
    event: dict[str, Any] = {"type": "agent.session.input.tool_result", "turn_id": call["turn_id"],
                             "call_id": call["call_id"], "success": success}
    if success:
        event["output"] = payload if isinstance(payload, str) else dumps(payload)
    else:
        event["error"] = payload if isinstance(payload, str) else dumps(payload)
    return event


def user_message(text: str) -> dict[str, Any]:
    return {"type": "agent.session.input.message",
            "input": [{"type": "message", "role": "user",
                       "content": [{"type": "input_text", "text": text}]}]}


class Replies:
    """Rows of ``results`` and their delivery."""

    def __init__(self, store: Store, sessions: Sessions, clock: Any) -> None:
        self.store = store
        self.sessions = sessions
        self.clock = clock

    @staticmethod
    def key_for_call(job: Job, call_id: str) -> str:
        return f"{job.job_id}/v{job.version}/result/{call_id}"

    def get(self, result_key: str) -> dict[str, Any] | None:
        with self.store.tx() as c:
            row = c.execute(select(RESULTS).where(RESULTS.c.result_key == result_key)).mappings().first()
        return None if row is None else dict(row)

    def for_job(self, job: Job) -> list[dict[str, Any]]:
        with self.store.tx() as c:
            rows = c.execute(select(RESULTS).where(RESULTS.c.job_id == job.job_id)
                             .where(RESULTS.c.version == job.version)).mappings().all()
        return [dict(r) for r in rows]

    def record(self, job: Job, *, result_key: str, kind: str, events: list[dict[str, Any]],
               call_id: str | None = None, success: bool | None = None) -> dict[str, Any]:
        """Write the input before it is sent (once per key)."""
        try:
            with self.store.tx() as c:
                c.execute(RESULTS.insert().values(
                    result_key=result_key, job_id=job.job_id, version=job.version,
                    session_id=job.session_id or "", call_id=call_id, kind=kind,
                    idem_key=result_key + "#1", body=dumps(events), state="PREPARED",
                    success=None if success is None else int(success)))
        except IntegrityError:
            pass
        row = self.get(result_key)
        assert row is not None
        return row

    def set_state(self, result_key: str, state: str) -> None:
        with self.store.tx() as c:
            c.execute(RESULTS.update().where(RESULTS.c.result_key == result_key)
                      .where(RESULTS.c.state != "ACCEPTED").values(state=state))

    def next_key(self, row: dict[str, Any]) -> None:
        """After a definite refusal (nothing applied), the next send uses a fresh key."""
        base, _, n = row["idem_key"].rpartition("#")
        with self.store.tx() as c:
            c.execute(RESULTS.update().where(RESULTS.c.result_key == row["result_key"])
                      .values(idem_key=f"{base}#{int(n or 1) + 1}"))

    def deliver(self, row: dict[str, Any], guard: Callable[[], str | None]) -> str:
        """Send a recorded input: ``accepted``, ``refused`` (no authority now), ``not_pending``,
        ``unknown``, ``revoked`` or ``definite``."""
        refusal = guard()
        if refusal:
            return "refused"
        with self.store.tx() as c:
            c.execute(RESULTS.update().where(RESULTS.c.result_key == row["result_key"])
                      .where(RESULTS.c.state != "ACCEPTED")
                      .values(state="SENT", sent_at=self.clock.now()))
        answer = self.sessions.send(row["session_id"], json.loads(row["body"]), row["idem_key"])
        if answer.ok:
            self.set_state(row["result_key"], "ACCEPTED")
            return "accepted"
        if answer.kind == "revoked":
            return "revoked"
        if answer.kind == "definite":
            if "unknown pending tool call" in (answer.detail or "").lower():
                return "not_pending"
            self.set_state(row["result_key"], "FAILED")
            return "definite"
        return "unknown"

    def settle_from_items(self, job: Job, rows: list[dict[str, Any]]) -> bool:
        """Resolve SENT tool results whose call no longer waits, by reading the items."""
        open_rows = [r for r in rows if r["state"] == "SENT" and r["call_id"]]
        if not open_rows or not job.session_id:
            return True
        answer, items = self.sessions.items(job.session_id)
        if not answer.ok:
            return False
        answered = {i.get("call_id") for i in items if i.get("type") == "function_call_output"}
        calls = {i.get("call_id"): i for i in items if i.get("type") == "function_call"}
        for row in open_rows:
            call = calls.get(row["call_id"]) or {}
            if row["call_id"] in answered or call.get("status") == "completed":
                self.set_state(row["result_key"], "ACCEPTED")
            elif call.get("status") in ("incomplete", "failed"):
                self.set_state(row["result_key"], "DROPPED")
        return True
