"""The graph's nodes: each reads what it needs, does one thing, and names the next node.

Nodes return partial state updates; `route` names the next node (anything else ends the run)
and `wait_s` tells the worker when to tick again. Decisions are taken from the ledger and the
services, never from the agent's words or from a turn merely having ended.
"""

from __future__ import annotations

from typing import Any

import openai

from . import httpio, tools
from .agentapi import is_unknown_pending
from .deps import (APPROVAL_POLL_S, POLL_S, Deps, article_finished, backoff, confirmed,
                   definite_failure, job_images, recovery_summary)
from .effects import settle as settle_op
from .leases import NotOurs
from .nodes_article import approval_for, perform_article, publish, settle_lookup, tool_result
from .nodes_coding import check_delivery

LISTING_PATIENCE_S = 75.0  # wait this long for a created session to show in filtered listings
IDLE_S = 30.0
Update = dict[str, Any]


def _end(wait_s: float = POLL_S, **extra: Any) -> Update:
    return {"route": "end", "wait_s": wait_s, **extra}


class Nodes:
    """Node functions bound to the process's dependencies."""

    def __init__(self, deps: Deps) -> None:
        self.d = deps

    # -- helpers ------------------------------------------------------------------------------

    def _job(self, state: Any) -> tuple[str, str, dict[str, Any]]:
        job_id, version = state["job_id"], state["version"]
        row = self.d.store.version(job_id, version)
        return job_id, version, (row or {}).get("job", {})

    def _allowed(self, job_id: str, version: str) -> list[str]:
        row = self.d.store.version(job_id, version)
        return list((row or {}).get("allowed_tools") or [])

    def _openai_failure(self, exc: BaseException) -> httpio.Failure:
        failure = httpio.classify_exception(exc)
        if failure.kind == "revoked":
            self.d.store.revoke("openai", self.d.clock.now(), failure.describe())
        return failure

    def _send(self, state: Any, events: list[dict[str, Any]], key: str, call_id: str | None = None) -> str:
        """Send input events through the write guard: sent | blocked | revoked | pending."""
        job_id, version, sid = state["job_id"], state["version"], state["session_id"]
        for attempt in range(5):
            try:
                with self.d.leases.write(job_id, version):
                    self.d.api.send(sid, events, key)
                return "sent"
            except NotOurs:
                return "blocked"
            except openai.APIError as exc:
                if call_id is not None and is_unknown_pending(exc):
                    if not self._still_pending(sid, call_id):
                        return "sent"  # not pending any more: our earlier send was taken
                    self.d.pause(job_id, 1.0 + attempt)
                    continue
                failure = self._openai_failure(exc)
                if failure.kind == "revoked":
                    return "revoked"
                if failure.kind == "definite":
                    print(f"input refused for good: {failure.describe()} {failure.message}", flush=True)
                    return "sent" if call_id is not None else "pending"
                if not self.d.pause(job_id, backoff(attempt, failure.retry_after)):
                    return "blocked"
        return "pending"

    def _still_pending(self, session_id: str, call_id: str) -> bool:
        try:
            session = self.d.api.retrieve(session_id)
        except openai.APIError:
            return True
        return any(a.get("call_id") == call_id for a in session.get("required_actions") or [])

    # -- nodes --------------------------------------------------------------------------------

    def guard(self, state: Any) -> Update:
        job_id, version, job = self._job(state)
        row = self.d.store.job(job_id)
        if row is None:
            return _end(IDLE_S)
        if row["cancelled_at"] is not None:
            return _end(IDLE_S, verdict="cancelled") if state.get("settled") else {"route": "settle"}
        if row["newest_version"] != version:
            return _end(IDLE_S) if state.get("retired") else {"route": "retire"}
        if state.get("verdict") in ("failed", "completed"):
            return _end(IDLE_S)
        revoked = self.d.store.revoked()
        if state.get("workload") == "coding":
            if state.get("delivered"):
                return _end(IDLE_S, verdict="completed")
            if "openai" in revoked:
                return _end(IDLE_S, verdict="needs_human", reason="the sessions API key was revoked")
            return {"route": "session"}
        ops = self.d.ledger.for_version(job_id, version)
        if article_finished(ops, job_images(job)):
            if revoked & {"openai", "wordpress"} or not state.get("session_id"):
                return {"route": "approval"}  # nothing more to do for the agent with these
            return {"route": "session"}
        if revoked & {"openai", "wordpress"}:
            return _end(IDLE_S, verdict="needs_human", reason=f"credential revoked: {sorted(revoked)}")
        return {"route": "session"}

    def session(self, state: Any) -> Update:
        job_id, version, job = self._job(state)
        record = self.d.store.session(job_id, version) or {}
        sid = state.get("session_id") or record.get("session_id")
        if sid:
            return {"session_id": sid, "route": "observe"}
        if record.get("create_sent_at") is not None and self.d.reconcile_on_rerun:
            try:  # a create was sent and its answer never seen: look before creating again
                found = self.d.api.find_sessions(job_id, version)
            except openai.APIError as exc:
                self._openai_failure(exc)
                return _end(2.0)
            if found:
                sid = str(found[0]["id"])
                self.d.store.session_found(job_id, version, sid)
                return {"session_id": sid, "route": "observe"}
            if self.d.clock.now() - float(record["create_sent_at"]) < LISTING_PATIENCE_S:
                return _end(3.0)
        coding = state.get("workload") == "coding"
        try:
            with self.d.leases.write(job_id, version):
                self.d.store.session_create_sent(job_id, version, self.d.clock.now())
                sid = self.d.api.create_session(
                    environment="openai_hosted" if coding else "none",
                    tools=tools.definitions(self._allowed(job_id, version)),
                    task=(f"Do the coding task of job {job_id}, version {version}." if coding else
                          f"Write and stage the WordPress article of job {job_id}, version {version}."),
                    job_id=job_id, version=version)
        except NotOurs:
            return _end(1.0)
        except openai.APIError as exc:
            failure = self._openai_failure(exc)
            if failure.kind == "definite":
                print(f"session create refused: {failure.describe()} {failure.message}", flush=True)
            return _end(3.0)
        self.d.store.session_found(job_id, version, sid)
        return {"session_id": sid, "route": "observe", "messages": 0}

    def observe(self, state: Any) -> Update:
        job_id, version, job = self._job(state)
        sid = state["session_id"]
        try:
            session = self.d.api.retrieve(sid)
        except openai.APIError as exc:
            failure = self._openai_failure(exc)
            return {"route": "guard"} if failure.kind == "revoked" else _end(POLL_S)
        answered = state.get("answered") or {}
        calls = [a for a in session.get("required_actions") or []
                 if a.get("type") == "function_call" and a.get("call_id") not in answered]
        if calls:
            return {"call": calls[0], "route": "perform"}
        status = session.get("status")
        if status in ("in_progress", "requires_action"):
            return _end(POLL_S)
        try:
            roots = [t for t in self.d.api.turns(sid) if not t.get("subagent_id")]
        except openai.APIError as exc:
            failure = self._openai_failure(exc)
            return {"route": "guard"} if failure.kind == "revoked" else _end(POLL_S)
        expected = 1 + int(state.get("messages") or 0)
        if len(roots) < expected or roots[-1].get("status") in ("queued", "in_progress", "waiting"):
            return _end(POLL_S)  # a read that lags behind our last input, or a turn still running
        return self._turn_over(state, job, status == "failed")

    def _turn_over(self, state: Any, job: dict[str, Any], session_failed: bool) -> Update:
        """The agent's turn is over: finished, resumable, or failed for good."""
        job_id, version = state["job_id"], state["version"]
        budget = int((job.get("budget") or {}).get("max_resume_attempts", 5))
        if state.get("workload") == "coding":
            if state.get("delivered"):
                return _end(IDLE_S, verdict="completed")
            if state.get("notices") and not session_failed and int(state.get("messages") or 0) < budget:
                return {"route": "resume"}
            return _end(IDLE_S, verdict="failed", reason="the agent's turn ended without a delivery")
        images = job_images(job)
        ops = self.d.ledger.for_version(job_id, version)
        if article_finished(ops, images):
            return {"route": "approval"}
        allowed = self._allowed(job_id, version)
        missing = [t for t in tools.needed_tools("article", images) if t not in allowed]
        reason = definite_failure(ops, images) or (f"tools not allowed: {missing}" if missing else "")
        if not reason and session_failed:
            reason = "the session failed"
        if not reason and int(state.get("messages") or 0) >= budget:
            reason = "resume attempts exhausted"
        if reason:
            return _end(IDLE_S, verdict="failed", reason=reason)
        return {"route": "resume"}

    def perform(self, state: Any) -> Update:
        job_id, version, job = self._job(state)
        call = state["call"]
        name = str(call.get("name"))
        if name not in self._allowed(job_id, version):
            reply = tool_result(call, False, f"the tool '{name}' is not among the job's allowed tools")
            return {"reply": reply, "route": "answer", "refused": [*(state.get("refused") or []), name]}
        if state.get("workload") == "coding":
            check = check_delivery(self.d, self.d.api.retrieve(state["session_id"]), call)
            if check.status == "accept":
                assert check.delivery is not None
                output = {"delivered": True, "sha256": check.delivery["sha256"]}
                return {"reply": tool_result(call, True, output), "delivery": check.delivery, "route": "answer"}
            if check.status == "refuse":
                return {"reply": tool_result(call, False, check.error), "delivery": None, "route": "answer",
                        "notices": [*(state.get("notices") or []), check.notice]}
            return {"route": "guard"} if check.status == "revoked" else _end(2.0)
        ops = self.d.ledger.for_version(job_id, version)
        effect, _role = perform_article(self.d, job, version, call, ops)
        if effect.status == "ok":
            return {"reply": tool_result(call, True, effect.result or {}), "route": "answer"}
        if effect.status == "definite":
            return {"reply": tool_result(call, False, effect.error), "route": "answer"}
        if effect.status == "blocked" and effect.error.startswith("tool "):
            return {"reply": tool_result(call, False, effect.error), "route": "answer",
                    "refused": [*(state.get("refused") or []), name]}
        if effect.status in ("revoked", "blocked"):
            return {"route": "guard"}
        return _end(2.0)

    def answer(self, state: Any) -> Update:
        job_id, version = state["job_id"], state["version"]
        call = state["call"]
        event = self.d.ledger.reply(job_id, version, call["call_id"], state["reply"])
        outcome = self._send(state, [event], f"{job_id}/v{version}/result/{call['call_id']}", call["call_id"])
        if outcome in ("blocked", "revoked"):
            return {"route": "guard"}
        if outcome == "pending":
            return _end(2.0)
        update: Update = {"answered": {**(state.get("answered") or {}), call["call_id"]: "sent"},
                          "call": None, "reply": None, "route": "observe"}
        if state.get("delivery") and event.get("success"):
            update["delivered"] = state["delivery"]
            update["delivery"] = None
        return update

    def resume(self, state: Any) -> Update:
        job_id, version, job = self._job(state)
        n = int(state.get("messages") or 0) + 1
        if state.get("workload") == "coding":
            text = "\n".join(dict.fromkeys(state.get("notices") or [])) or "Please deliver the report."
        else:
            text = recovery_summary(self.d.ledger.for_version(job_id, version), job_images(job))
        event = {"type": "agent.session.input.message",
                 "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}]}
        event = self.d.ledger.reply(job_id, version, f"message:{n}", event)
        outcome = self._send(state, [event], f"{job_id}/v{version}/message/{n}")
        if outcome in ("blocked", "revoked"):
            return {"route": "guard"}
        if outcome == "pending":
            return _end(2.0)
        return _end(POLL_S, messages=n, notices=[])

    def approval(self, state: Any) -> Update:
        job_id, version, _job = self._job(state)
        ops = self.d.ledger.for_version(job_id, version)
        if confirmed(ops, "article:publish"):
            return _end(IDLE_S, verdict="completed")
        article = confirmed(ops, "article")
        revoked = self.d.store.revoked()
        if article is None or "wp_publish" not in self._allowed(job_id, version) or revoked & {"wordpress", "approvals"}:
            return _end(APPROVAL_POLL_S * 4, verdict="needs_human")
        verdict, found = approval_for(self.d, job_id, version, int(str(article.remote_id)))
        if found is not None:
            return {"route": "publish", "verdict": "needs_human"}
        return _end(APPROVAL_POLL_S, verdict="needs_human")

    def publish(self, state: Any) -> Update:
        job_id, version, _job = self._job(state)
        article = confirmed(self.d.ledger.for_version(job_id, version), "article")
        assert article is not None
        outcome = publish(self.d, job_id, version, int(str(article.remote_id)))
        if outcome == "ok":
            return _end(IDLE_S, verdict="completed")
        if outcome == "blocked":
            return {"route": "guard"}
        return _end(APPROVAL_POLL_S)

    def settle(self, state: Any) -> Update:
        """Cancelled: end the turn, settle what was in flight by reading only, and stay cancelled."""
        job_id = state["job_id"]
        update: Update = {"verdict": "cancelled"}
        for version in {state["version"]} | {v["version"] for v in self.d.store.versions(job_id)}:
            if not self._stop_session(job_id, version, "cancel"):
                return _end(2.0, **update)
        settled = True
        for op in self.d.ledger.for_job(job_id):
            if op.state in ("SENT", "UNKNOWN"):
                article = confirmed(self.d.ledger.for_version(job_id, op.version), "article")
                settle_op(self.d, op.key, settle_lookup(self.d, op, article.remote_id if article else None))
                after = self.d.ledger.get(op.key)
                settled = settled and (after is None or after.state not in ("SENT",) and
                                       (after.state != "UNKNOWN" or op.kind == "wp_set_seo"))
        return _end(IDLE_S if settled else 3.0, settled=settled, cancel_sent=True, **update)

    def retire(self, state: Any) -> Update:
        """A newer task version superseded this one: stop its agent; never publish it."""
        done = self._stop_session(state["job_id"], state["version"], "retire")
        return _end(IDLE_S if done else 3.0, retired=done)

    def _stop_session(self, job_id: str, version: str, why: str) -> bool:
        """Cancel a version's active turn (harmless when there is none); True once done."""
        record = self.d.store.session(job_id, version) or {}
        sid = record.get("session_id")
        if not sid or "openai" in self.d.store.revoked():
            return True
        try:
            self.d.api.send(sid, [{"type": "agent.session.input.cancel"}], f"{job_id}/v{version}/{why}")
            return True
        except openai.APIError as exc:
            failure = self._openai_failure(exc)
            return failure.kind in ("revoked", "definite")
