"""The DBOS steps of a job: each one a unit of I/O whose result DBOS checkpoints.

DBOS replays a recorded step's result after a restart and runs the first unrecorded one again,
so each step is written to be safe to run twice: reads, a lease renewal, a session found by its
metadata before one is created, a tool call reconciled through the ledger, inputs sent with an
idempotency key. Every step returns a plain dict and never raises: an unexpected error becomes
``{"error": ...}`` so the workflow can wait and look again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

from dbos import DBOS

from gate import Forbidden, guarded
from observe import observe
from planner import final_outcome
from runtime import rt
from sessions import ApiFailure
from settle import settle_version

F = TypeVar("F", bound=Callable[..., dict[str, Any]])


def safe(fn: F) -> F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            out = fn(*args, **kwargs)
            quiet = out.get("do") in ("wait", "approval") or out.get("state") == "waiting"
            if not quiet:
                print(f"{time.time():.3f} {fn.__name__} -> {json.dumps(out)[:160]}", flush=True)
            return out
        except Exception as exc:  # noqa: BLE001 - a step must hand back, never raise
            print(f"step {fn.__name__} failed: {exc!r}\n{traceback.format_exc()}", flush=True)
            return {"error": repr(exc)[:300]}
    return wrapper  # type: ignore[return-value]


def _check(job_id: str, version: str) -> None:
    r = rt()
    if r.authority.cancelled(job_id):
        raise Forbidden("cancelled")
    if not r.store.is_newest(job_id, version):
        raise Forbidden("superseded")


@DBOS.step()
@safe
def observe_step(job_id: str, version: str) -> dict[str, Any]:
    return observe(job_id, version)


@DBOS.step()
@safe
def session_step(job_id: str, version: str) -> dict[str, Any]:
    """Find the version's session (our mapping, then the listing) or create it, once."""
    r = rt()
    row = r.store.version(job_id, version)
    assert row is not None
    if row.session_id:
        return {"ok": row.session_id}
    try:
        found = r.sessions.list_for(job_id, version)
        if found:
            r.store.update_version(job_id, version, session_id=str(found[0]["id"]))
            return {"ok": found[0]["id"]}
        # On the run's time, not the wall clock's: the run's time stands still while a restart
        # starts us, so wall seconds since the create overstate how long the listing has had.
        waited = r.clock.unix() - row.session_create_at if row.session_create_at else None
        if waited is not None and waited < 90:
            return {"wait": 5}  # a create may have happened: the listing lags up to ten seconds
        with r.leases.write_lock(job_id):
            r.leases.check_and_renew(job_id)
            _check(job_id, version)
            r.store.update_version(job_id, version, session_create_at=r.clock.unix())
            with guarded(job_id, lambda: _check(job_id, version)):
                session = r.sessions.create(row.job, version, row.allowed_tools)
    except Forbidden as exc:
        return {"stop": exc.reason}
    except ApiFailure as exc:
        if exc.kind == "not_sent":
            r.store.update_version(job_id, version, session_create_at=None)
            return {"wait": 2}
        if exc.kind == "unknown":
            return {"wait": 5}
        return {"finish": f"session: {exc}"}
    r.store.update_version(job_id, version, session_id=str(session["id"]))
    return {"ok": session["id"]}


@DBOS.step()
@safe
def tool_step(job_id: str, version: str, call: dict[str, Any], session_id: str,
              environment_id: str | None) -> dict[str, Any]:
    r = rt()
    if call.get("name") == "deliver_result":
        return r.delivery.run(job_id, version, session_id, environment_id, call)
    return r.tools.run(job_id, version, call)


def _send(job_id: str, version: str, session_id: str, events: list[dict[str, Any]],
          key: str) -> dict[str, Any]:
    """Send input events under the gate, retrying an unknown outcome with the same key."""
    r = rt()
    last = ""
    for attempt in range(4):
        try:
            with r.leases.write_lock(job_id):
                r.leases.check_and_renew(job_id)
                _check(job_id, version)
                with guarded(job_id, lambda: _check(job_id, version)):
                    r.sessions.send(session_id, events, key)
            return {"state": "sent"}
        except Forbidden as exc:
            return {"state": "stop", "reason": exc.reason}
        except ApiFailure as exc:
            if exc.kind == "refused":
                return {"state": "stop", "reason": "refused"}
            if exc.kind == "definite":
                return {"state": "definite", "detail": str(exc)}
            last = str(exc)
            time.sleep(r.settings.real(2.0 * 2 ** attempt))
    return {"state": "unknown", "detail": last}


@DBOS.step()
@safe
def result_step(job_id: str, version: str, session_id: str, call: dict[str, Any],
                result: dict[str, Any]) -> dict[str, Any]:
    """Answer the call with its result (an idempotency key per call, attempt and body)."""
    r = rt()
    call_id = str(call["call_id"])
    event: dict[str, Any] = {"type": "agent.session.input.tool_result",
                             "turn_id": call.get("turn_id"), "call_id": call_id,
                             "success": bool(result.get("success"))}
    if result.get("success"):
        event["output"] = result.get("output") or "{}"
    else:
        event["error"] = result.get("error") or "failed"
    state = r.store.answer_state(session_id, call_id)
    attempt = state[1] if state else 0
    digest = hashlib.sha256(json.dumps(event, sort_keys=True).encode()).hexdigest()[:12]
    out = _send(job_id, version, session_id, [event], f"tr-{call_id}-{attempt}-{digest}")
    if out["state"] == "sent":
        r.store.set_answer(session_id, call_id, job_id, "sent", attempt)
        if call.get("name") == "deliver_result" and result.get("success"):
            args = call.get("arguments") or {}
            if isinstance(args, str):
                args = json.loads(args or "{}")
            artifact = {"role": "report", "sha256": str(args.get("sha256")),
                        "uri": f"artifact://{session_id}/{args.get('artifact_id')}"}
            r.store.update_version(job_id, version, artifacts=[artifact], phase="delivered",
                                   outcome="completed", stale_delivery=None)
    elif out["state"] == "definite":
        # e.g. 400 "Unknown pending tool call": nothing applied; read the session again, and
        # if the call still waits, answer it under a new key.
        r.store.set_answer(session_id, call_id, job_id, "refused", attempt + 1)
    return out


@DBOS.step()
@safe
def resume_step(job_id: str, version: str, session_id: str, text: str,
                turns: int) -> dict[str, Any]:
    """Start the next turn with a message (the recovery summary, or the sandbox's news)."""
    r = rt()
    row = r.store.version(job_id, version)
    assert row is not None
    event = {"type": "agent.session.input.message",
             "input": [{"type": "message", "role": "user",
                        "content": [{"type": "input_text", "text": text}]}]}
    out = _send(job_id, version, session_id, [event], f"msg-{version}-{row.resume_attempts}")
    if out["state"] == "sent":
        r.store.update_version(job_id, version, resume_attempts=row.resume_attempts + 1,
                               msg_root_turns=turns, stale_delivery=None)
    return out


@DBOS.step()
@safe
def approval_step(job_id: str, version: str) -> dict[str, Any]:
    r = rt()
    ops = r.ledger.for_version(job_id, version)
    article = next((op for op in ops if op.role == "article" and op.state == "CONFIRMED"), None)
    if article is None or not article.remote_id:
        return {"state": "stop", "reason": "no article"}
    return r.publisher.step(job_id, version, int(article.remote_id))


@DBOS.step()
@safe
def settle_step(job_id: str, version: str) -> dict[str, Any]:
    return settle_version(job_id, version)


@DBOS.step()
@safe
def finish_step(job_id: str, version: str, why: str) -> dict[str, Any]:
    """Record the version's final outcome, classified from the ledger and the refusals."""
    r = rt()
    row = r.store.version(job_id, version)
    assert row is not None
    if row.finished:
        return {"outcome": row.outcome}
    if r.authority.cancelled(job_id):
        outcome = "cancelled"
    elif not r.store.is_newest(job_id, version):
        outcome = "failed"
    else:
        ops = r.ledger.for_version(job_id, version)
        outcome = final_outcome(row.workload, row.job, ops, row.phase, bool(row.artifacts),
                                r.store.refused_services())
    r.store.update_version(job_id, version, outcome=outcome, finished=True, note=why[:300])
    print(f"job {job_id} v{version} finished: {outcome} ({why})", flush=True)
    return {"outcome": outcome}
