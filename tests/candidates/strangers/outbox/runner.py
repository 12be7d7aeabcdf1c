"""One job's work in a step: reconcile by reading, then continue.

:meth:`Runner.advance` takes the job's writer lock and lease (or leaves the job to the worker that
holds them), then, in this order:

1. reads back every open outbox row of the job (a write whose outcome nobody saw);
2. stops if a credential was refused (the job waits for a human) or the job failed for good;
3. finds the job's session — its own ledger row first; after a create whose outcome is unknown,
   the listing by metadata, waited for as long as it may lag — and creates one only when it is
   proven that none exists;
4. reads the session and acts on what it shows: answers each waiting call from the ledger (doing
   the business action only if the ledger lacks it), or, when the turn is over, finishes the job,
   resumes it with a recovery summary, or gives up honestly.

A cancelled job gets only reads, the settling of what was in flight, and a cancel of its turn.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from .article import Article, needed_roles
from .article import tool_definitions as article_tools
from .authority import Leases, WriterLock
from .coding import REDO_MESSAGE, Coding
from .coding import tool_definitions as coding_tools
from .effects import Effects
from .jobs import Job, Jobs
from .outbox import Outbox
from .replies import Replies, tool_result, user_message
from .safeguards import Safeguards
from .sessions import Sessions
from .store import Store

LISTING_LAG_S = 60.0


class Runner:
    """Advances jobs; every decision is taken from the database and from reads of the world."""

    def __init__(self, *, env: Any, store: Store, jobs: Jobs, outbox: Outbox, replies: Replies,
                 sessions: Sessions, effects: Effects, article: Article, coding: Coding,
                 leases: Leases, lock: WriterLock, safeguards: Safeguards) -> None:
        self.clock = env.clock
        self.store, self.jobs, self.outbox, self.replies = store, jobs, outbox, replies
        self.sessions, self.effects, self.article, self.coding = sessions, effects, article, coding
        self.leases, self.lock, self.safeguards = leases, lock, safeguards

    def revoked(self, service: str) -> bool:
        return self.store.flag(f"revoked:{service}") is not None

    # --- authority ------------------------------------------------------------------------------
    def guard(self, job: Job, token: int, service: str, tool: str | None = None) -> Callable[[], str | None]:
        def check() -> str | None:
            if self.jobs.is_cancelled(job.job_id):
                return "cancelled"
            if self.jobs.current_version(job.job_id) != job.version:
                return "superseded"
            if self.revoked(service):
                return f"{service} credential revoked"
            if tool is not None:
                fresh = self.jobs.load(job.job_id, job.version)
                if fresh is None or tool not in fresh.allowed_tools:
                    return f"tool {tool} is not allowed for this job"
            if not self.leases.renew(job.job_id, token, self.clock.now()):
                return "lease lost"
            return None
        return check

    # --- a step's work on one job -----------------------------------------------------------------
    def advance(self, job_id: str) -> bool:
        job = self.jobs.load(job_id)
        if job is None:
            return False
        if job.cancelled:
            return self.settle_cancelled(job_id)
        if not self.lock.try_acquire(job_id):
            return False
        try:
            token = self.leases.acquire(job_id, self.clock.now())
            if token is None:
                return False
            return self.work(job, token)
        finally:
            self.lock.release(job_id)

    def reconcile(self, job_id: str, *, may_resend: bool = True) -> None:
        if self.revoked("wordpress"):
            return
        for row in self.outbox.open_ops(job_id):
            if row["state"] == "SENT" and not self.safeguards.read_back_after_restart:
                continue
            if self.effects.settle(row, may_resend=may_resend) == "revoked":
                return

    def work(self, job: Job, token: int) -> bool:
        fence = f"{job.job_id}:{token}"
        self.reconcile(job.job_id)
        if job.row["failed_reason"] or job.row["delivered"]:
            return False
        if job.workload == "article" and job.row["verified"]:
            if (self.article.confirmed(job, "publish") or self.revoked("wordpress")
                    or self.revoked("approvals")):
                return False  # published, or only a human can go on: nothing to do
            return self.article.publish(job, fence, self.guard(job, token, "wordpress")) == "done"
        if self.revoked("openai") or self.revoked("wordpress"):
            self.jobs.set_if_unset(job, "needs_human_reason", "a credential was revoked")
            return False
        session_id, acted = self.ensure_session(job, token)
        if session_id is None:
            return acted
        answer, session = self.sessions.retrieve(session_id)
        if not answer.ok or session is None:
            return False
        status = session.get("status")
        if status == "requires_action":
            return self.answer_calls(job, token, fence, session)
        if status == "idle":
            return self.turn_over(job, token, fence)
        if status == "failed":
            return self.finish_or_fail(job, f"the session failed: {session.get('error')}")
        return False

    # --- the session ------------------------------------------------------------------------------
    def ensure_session(self, job: Job, token: int) -> tuple[str | None, bool]:
        """The job's session id (or None for now), and whether anything was done."""
        state = job.row["session_state"]
        if state == "CONFIRMED":
            return job.session_id, False
        if state == "SENT" and not self.safeguards.read_back_after_restart:
            state = "NONE"
        if state in ("SENT", "UNKNOWN"):
            found = self.find_session(job)
            if found not in (None, "absent"):
                self.jobs.update(job, session_state="CONFIRMED", session_id=found)
                return found, True
            if found is None:
                return None, True  # the listing was read (and waited for); try again later
        if self.guard(job, token, "openai")():
            return None, False
        self.jobs.update(job, session_state="SENT", session_sent_at=self.clock.now())
        tools = (article_tools if job.workload == "article" else coding_tools)(job.allowed_tools)
        answer, session_id = self.sessions.create(
            environment="none" if job.workload == "article" else "openai_hosted", tools=tools,
            task=_task_text(job), metadata={"job_id": job.job_id, "task_version": job.version})
        if answer.ok and session_id:
            self.jobs.update(job, session_state="CONFIRMED", session_id=session_id)
            return session_id, True
        if answer.kind == "definite":
            self.jobs.update(job, session_state="FAILED")
            self.jobs.set_if_unset(job, "failed_reason", f"session create refused: {answer.describe()}")
        elif answer.kind == "down":
            self.jobs.update(job, session_state="FAILED")
            self.clock.sleep(5.0)
        elif answer.kind == "unknown":
            self.jobs.update(job, session_state="UNKNOWN")
        return None, True

    def find_session(self, job: Job) -> str | None:
        """The session of an uncertain create: its id, ``"absent"`` once the listing has had the
        time to show it, or None when that is not known yet."""
        for _ in range(20):
            answer, ids = self.sessions.find({"job_id": job.job_id, "task_version": job.version})
            if answer.ok and ids:
                return ids[0]
            if answer.kind == "revoked":
                return None
            sent_at = float(job.row["session_sent_at"] or 0.0)
            if answer.ok and self.clock.now() - sent_at >= LISTING_LAG_S:
                return "absent"
            self.clock.sleep(5.0)
        return None

    # --- waiting calls --------------------------------------------------------------------------------
    def answer_calls(self, job: Job, token: int, fence: str, session: dict[str, Any]) -> bool:
        calls = [a for a in session.get("required_actions") or [] if a.get("type") == "function_call"]
        waiting = {c.get("call_id") for c in calls}
        rows = self.replies.for_job(job)
        orphans = [r for r in rows if r["state"] == "SENT" and r["call_id"] not in waiting]
        if orphans:
            self.replies.settle_from_items(job, orphans)
            self.sync_delivery(job)
        progress = False
        for call in calls:
            key = Replies.key_for_call(job, call["call_id"])
            row = self.replies.get(key)
            if row is not None and row["state"] in ("ACCEPTED", "DROPPED"):
                continue  # answered already: the read lags behind
            if row is None:
                decided = self.decide(job, token, fence, session, call)
                if decided is None:
                    return True
                success, payload = decided
                row = self.replies.record(job, result_key=key, kind="tool_result", call_id=call["call_id"],
                                          events=[tool_result(call, success, payload)], success=success)
            progress = True
            if not self.deliver(job, token, row):
                return True
        return progress

    def decide(self, job: Job, token: int, fence: str, session: dict[str, Any],
               call: dict[str, Any]) -> tuple[bool, Any] | None:
        """The answer to a call, after doing its business action if the ledger lacks it; None when
        the call must stay unanswered for now (no authority, a revoked credential, try later)."""
        name = str(call.get("name"))
        args = call.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                args = {}
        args = args if isinstance(args, dict) else {}
        fresh = self.jobs.load(job.job_id, job.version) or job
        if name not in fresh.allowed_tools:
            return False, f"tool {name!r} is not among the job's allowed tools"
        calls = int(fresh.row["tool_calls"]) + 1
        self.jobs.update(job, tool_calls=calls)
        if calls > int(job.budget.get("max_tool_calls", 1000)):
            self.jobs.set_if_unset(job, "failed_reason", "the tool-call budget ran out")
            return False, "the job's tool-call budget ran out"
        if job.workload == "coding":
            verdict, payload = self.coding.check(job, session, args)
            if verdict in ("retry", "revoked"):
                return None
            if verdict == "refuse":
                signature = f"refused:{job.job_id}/v{job.version}:{args.get('artifact_id')}:{args.get('sha256')}"
                if self.store.bump_counter(signature) > 1:
                    # the very delivery refused before, asked again: asking for a redo changed nothing
                    self.jobs.set_if_unset(job, "failed_reason", f"the same refused report came again: {payload}")
            return verdict == "accept", payload
        action = self.article.action_for(job, name, args)
        if isinstance(action, str):
            return False, action
        result = self.effects.perform(action, fence, self.guard(job, token, "wordpress", name))
        if result.status == "done":
            return True, result.receipt
        if result.status == "failed":
            return False, result.error
        if result.status == "pending":
            return False, f"temporarily failed ({result.error}); it will be resumed"
        if result.status == "refused" and "not allowed" in result.error:
            return False, result.error
        if result.status == "revoked":
            self.jobs.set_if_unset(job, "needs_human_reason", "the WordPress credential was revoked")
        return None

    def deliver(self, job: Job, token: int, row: dict[str, Any]) -> bool:
        """Send a recorded reply until it is accepted or settled; False to stop the job's step."""
        guard = self.guard(job, token, "openai")
        for attempt in range(4):
            outcome = self.replies.deliver(row, guard)
            if outcome == "accepted":
                self.sync_delivery(job)
                return True
            if outcome in ("refused", "revoked", "definite"):
                return False
            answer, session = self.sessions.retrieve(row["session_id"])
            waiting = {a.get("call_id") for a in (session or {}).get("required_actions") or []}
            if answer.ok and row["call_id"] and row["call_id"] not in waiting:
                self.replies.settle_from_items(job, [self.replies.get(row["result_key"]) or row])
                self.sync_delivery(job)
                return True
            if outcome == "not_pending":
                self.replies.next_key(row)
            self.clock.sleep(min(2.0 * (2 ** attempt), 10.0))
            row = self.replies.get(row["result_key"]) or row
        return False

    def sync_delivery(self, job: Job) -> None:
        """Record an accepted delivery (coding) once its tool result was accepted."""
        if job.workload != "coding" or job.row.get("delivered"):
            return
        for row in self.replies.for_job(job):
            if row["kind"] == "tool_result" and row["state"] == "ACCEPTED" and row["success"]:
                output = json.loads(json.loads(row["body"])[0].get("output") or "{}")
                if output.get("delivered"):
                    self.jobs.update(job, delivered=json.dumps(output, sort_keys=True))
                    return

    # --- the turn is over ----------------------------------------------------------------------------
    def turn_over(self, job: Job, token: int, fence: str) -> bool:
        answer, turns = self.sessions.root_turns(job.session_id or "")
        if not answer.ok:
            return False
        last_resume = int(job.row["resume_turns"])
        if last_resume >= 0 and len(turns) <= last_resume:
            row = self.replies.get(_message_key(job, int(job.row["resume_attempts"])))
            if row is not None and row["state"] != "ACCEPTED":
                return self.deliver(job, token, row)
            self.clock.sleep(2.0)  # our message was accepted; the read lags behind it
            return True
        self.replies.settle_from_items(job, self.replies.for_job(job))
        self.sync_delivery(job)
        job = self.jobs.load(job.job_id, job.version) or job
        if job.workload == "coding" and job.row["delivered"]:
            return False
        if job.workload == "article":
            if self.article.all_done(job):
                return self.finish_or_fail(job, "")
            blocked = self.article.blocked(job)
            if blocked:
                self.jobs.set_if_unset(job, "failed_reason", blocked)
                return True
        attempts = int(job.row["resume_attempts"])
        if attempts >= int(job.budget.get("max_resume_attempts", 5)):
            self.jobs.set_if_unset(job, "failed_reason", f"gave up after {attempts} resumes")
            return True
        if self.guard(job, token, "openai")():
            return False
        text = self.article.recovery_summary(job) if job.workload == "article" else REDO_MESSAGE
        self.jobs.update(job, resume_attempts=attempts + 1, resume_turns=len(turns))
        row = self.replies.record(job, result_key=_message_key(job, attempts + 1), kind="message",
                                  events=[user_message(text)])
        self.deliver(job, token, row)
        return True

    def finish_or_fail(self, job: Job, reason: str) -> bool:
        """The work is over: verified and awaiting approval if the world shows it done."""
        if job.workload == "article" and self.article.all_done(job):
            verdict = self.article.verify(job)
            if verdict == "ok":
                self.jobs.update(job, verified=1)
                return True
            if verdict in ("retry", "revoked"):
                return False
            reason = verdict
        if job.workload == "coding":
            self.sync_delivery(job)
            if (self.jobs.load(job.job_id, job.version) or job).row["delivered"]:
                return True
        self.jobs.set_if_unset(job, "failed_reason", reason or "the work was not done")
        return True

    # --- a cancelled job ----------------------------------------------------------------------------
    def settle_cancelled(self, job_id: str) -> bool:
        """Reads only: settle what was in flight, and cancel the session's active turn."""
        self.reconcile(job_id, may_resend=False)
        progress = False
        for job in self.jobs.versions(job_id):
            if self.revoked("openai"):
                break
            if job.row["session_state"] in ("SENT", "UNKNOWN"):
                answer, ids = self.sessions.find({"job_id": job.job_id, "task_version": job.version})
                if answer.ok and ids:
                    self.jobs.update(job, session_state="CONFIRMED", session_id=ids[0])
                elif answer.ok and self.clock.now() - float(job.row["session_sent_at"] or 0) >= LISTING_LAG_S:
                    self.jobs.update(job, session_state="FAILED")
            if not job.session_id or job.row["turn_cancel_sent"]:
                continue
            answer, session = self.sessions.retrieve(job.session_id)
            if not answer.ok or session is None:
                continue
            if session.get("status") in ("in_progress", "requires_action"):
                sent = self.sessions.send(job.session_id, [{"type": "agent.session.input.cancel"}],
                                          f"{job.job_id}/v{job.version}/cancel")
                if not sent.ok:
                    continue
                progress = True
            self.jobs.update(job, turn_cancel_sent=1)
        return progress


def _task_text(job: Job) -> str:
    if job.workload == "article":
        return f"Write and stage the WordPress article of job {job.job_id}, version {job.version}."
    return f"Carry out the coding task of job {job.job_id}, version {job.version}, and deliver its report."


def _message_key(job: Job, n: int) -> str:
    return f"{job.job_id}/v{job.version}/message/{n}"


__all__ = ["Runner", "needed_roles"]
