"""Looking at a job version and deciding what the workflow does next (reads only).

The decision is taken from what is stored (cancellation, newest version, refusals, lease, ledger,
answered calls) and from a fresh read of the session: a pending function call not yet answered,
a turn still running (wait), or the root agent's turn over (finish, wait for approval, or resume
with a recovery summary). A turn is over only when the session is idle and the newest *root*
turn (subagents' turns are not the job's) is newer than our last message and has ended.
"""

from __future__ import annotations

import time
from typing import Any

from gate import Forbidden
from planner import article_done, blocker, recovery_summary
from runtime import rt
from sessions import ApiFailure

POLL_S = 1.5
ACTIVE_TURN = ("queued", "in_progress", "waiting")


def _budget(job: dict[str, Any]) -> int:
    try:
        return int((job.get("budget") or {}).get("max_resume_attempts", 5))
    except (TypeError, ValueError):
        return 5


def observe(job_id: str, version: str) -> dict[str, Any]:
    r = rt()
    row = r.store.version(job_id, version)
    if row is None:
        return {"do": "end", "outcome": "unknown"}
    if row.finished:
        return {"do": "end", "outcome": row.outcome}
    if r.authority.cancelled(job_id):
        return {"do": "cancel"}
    if not r.store.is_newest(job_id, version):
        return {"do": "supersede"}
    if r.leases.ensure(job_id) is None:
        return {"do": "wait", "s": r.settings.lease_ttl_s / 3, "why": "lease held elsewhere"}
    refused = r.store.refused_services()
    ops = r.ledger.for_version(job_id, version)
    if "openai" in refused:
        return {"do": "finish", "why": "the sessions API key was refused"}
    if row.workload == "article" and "wordpress" in refused:
        if article_done(row.job, ops) and row.phase != "published":
            # Every write went through: it awaits approval, which nobody can act on without
            # the credential; only a human can go on.
            r.store.update_version(job_id, version, phase="awaiting_approval",
                                   approval_status="awaiting")
        return {"do": "finish", "why": "the WordPress credential was refused"}
    if row.phase == "awaiting_approval":
        return {"do": "approval"}
    if row.session_id is None:
        return {"do": "session"}
    sid = row.session_id
    try:
        session = r.sessions.retrieve(sid)
    except Forbidden:
        return {"do": "finish", "why": "a credential was refused"}
    except ApiFailure as exc:
        if exc.kind == "refused":
            return {"do": "finish", "why": "the sessions API key was refused"}
        return {"do": "wait", "s": 2.0, "why": f"session read failed: {exc}"}
    environment = session.get("environment") or {}
    env_id = environment.get("id") if isinstance(environment, dict) else None
    answered = r.store.answered_calls(sid)
    now = time.time()
    for action in session.get("required_actions") or []:
        if not isinstance(action, dict) or action.get("type") != "function_call":
            continue
        state = answered.get(str(action.get("call_id")))
        stuck = state is not None and state[0] == "sent" and now - state[1] > r.settings.real(30)
        if state is None or state[0] == "refused" or stuck:
            call = {k: action.get(k) for k in ("call_id", "turn_id", "name", "arguments")}
            return {"do": "call", "call": call, "session": sid, "env": env_id}
    status = session.get("status")
    if status == "failed":
        return {"do": "finish", "why": f"the session failed: {session.get('error')}"}
    if status != "idle":
        return {"do": "wait", "s": POLL_S}
    try:
        turns = r.sessions.root_turns(sid)
    except (ApiFailure, Forbidden) as exc:
        return {"do": "wait", "s": 2.0, "why": f"turns read failed: {exc}"}
    if len(turns) <= row.msg_root_turns or (turns and turns[-1].get("status") in ACTIVE_TURN):
        return {"do": "wait", "s": POLL_S}
    return _turn_over(job_id, version, sid, len(turns))


def _turn_over(job_id: str, version: str, sid: str, turns: int) -> dict[str, Any]:
    """The root agent's turn has ended: is the job done, blocked, or to be resumed?"""
    r = rt()
    row = r.store.version(job_id, version)
    assert row is not None
    ops = r.ledger.for_version(job_id, version)
    budget_left = row.resume_attempts < _budget(row.job)
    if row.workload == "coding":
        if row.artifacts:
            return {"do": "finish", "why": "the report was delivered"}
        if not budget_left:
            return {"do": "finish", "why": "no checked delivery within the resume budget"}
        text = ("The environment was replaced (or the report no longer matches it): "
                f"{row.stale_delivery}. Restore the files, run the tests again and deliver a "
                "fresh report." if row.stale_delivery else
                "No report was delivered. Run the tests again and deliver a fresh report.")
        return {"do": "resume", "text": text, "turns": turns, "session": sid}
    if article_done(row.job, ops):
        r.store.update_version(job_id, version, phase="awaiting_approval",
                               outcome="needs_human", approval_status="awaiting")
        return {"do": "approval"}
    why = blocker(row.job, ops, row.allowed_tools, row.note)
    if why is not None:
        return {"do": "finish", "why": why}
    if not budget_left:
        return {"do": "finish", "why": "the resume budget is spent"}
    return {"do": "resume", "text": recovery_summary(ops), "turns": turns, "session": sid}
