"""One job, carried forward by reading its session: the control plane's state machine.

Each ``advance`` starts from the store and a fresh ``sessions.retrieve`` (read first), then does
what the session's state calls for:

- no session yet: create it (after looking for one by metadata if a create may already have
  happened) — never a second one, never the task again;
- ``requires_action``: answer each pending function call to its exact call_id, with the answer and
  idempotency key fixed in the store before the first send; an ``environment_connection`` action
  is waited out;
- ``idle``: the root agent's turn is over, which is not the job being done. Loose calls are settled
  from the session's items (every page), the ledger is reconciled, and the job is judged by the
  ledger: done, definitely failed, or resumed with a recovery summary (or, for the coding job, with
  the news that its sandbox was replaced);
- ``failed``: the job failed, unless its report was already delivered.

Authority (``docs/contract.md``, *Authority*) shapes all of it:

- a finished article waits for a reviewer (``needs_human``) and is published only under an approval
  in force now (``publishing``);
- a job cancelled by its user, or superseded by a newer task version, is stopped (``stopping``):
  its session's turn is cancelled and what was in flight is settled by reads; nothing else is sent;
- a credential a service refused (401) is never used again, and a job that needs it waits for a
  human;
- a call is executed only while its tool is among the job's allowed tools as they are now, and a
  changed allow-list is declared to the agent again.

Every write asks ``Authority.before_write`` first, so a ``cancel`` or ``submit`` that arrives while
a request of this very step is in flight is obeyed from the next write on.

All waiting is the caller's: ``advance`` returns how long until another look is worthwhile.
"""

from __future__ import annotations

import json
from typing import Any

from tests.candidates.strangers.polling.actions import Answer, Progress, Wait
from tests.candidates.strangers.polling.approvals import Approvals
from tests.candidates.strangers.polling.article import ArticleTools
from tests.candidates.strangers.polling.authority import Authority, JobStopped
from tests.candidates.strangers.polling.coding import ENVIRONMENT_REPLACED_NOTICE, Deliveries
from tests.candidates.strangers.polling.credentials import CredentialRevoked, Credentials
from tests.candidates.strangers.polling.leases import LEASE_TTL_S, LeaseLost, Leases
from tests.candidates.strangers.polling.publishing import Publisher
from tests.candidates.strangers.polling.records import Call, Job, Message
from tests.candidates.strangers.polling.sessions import (
    NotPending,
    Refused,
    SessionsApi,
    Transient,
    arguments_of,
)
from tests.candidates.strangers.polling.stopping import Stopper
from tests.candidates.strangers.polling.store import Store
from tests.candidates.strangers.polling.wordpress import WordPress

__all__ = ["POLL_MAX_S", "POLL_MIN_S", "Engine"]

POLL_MIN_S = 1.0
POLL_MAX_S = 8.0
RESEND_GRACE_S = 10.0
LISTING_SETTLE_S = 15.0
MODEL = "gpt-5"
_TERMINAL_TURN = frozenset({"completed", "failed", "cancelled"})

_ARTICLE_TASK = ("Job {job_id}, version {version}: write the article described below and stage it in WordPress as a "
                 "draft for publish approval: upload its images, create the draft, set its excerpt and featured "
                 "image, set its SEO fields and read it back. Do not publish.\n{inputs}")
_CODING_TASK = ("Job {job_id}, version {version}: implement the module described below with tests in the sandbox, run "
                "the tests, capture the report as a session artifact and deliver it with deliver_result.\n{inputs}")


class Engine:
    """Carries jobs forward one look at a time; holds no state that matters beyond the store
    (only the polling back-off, which a restart may forget)."""

    def __init__(self, env: Any, *, buggy: bool = False) -> None:
        self.store = Store(env.database_url)
        self._clock = env.clock
        approvals_endpoint = env.services.get("approvals")  # the approval authority (article jobs publish under it)
        approvals_url = approvals_endpoint.url if approvals_endpoint is not None else ""
        approvals_token = approvals_endpoint.credentials.get("token", "") if approvals_endpoint is not None else ""
        credentials = Credentials(self.store, {"openai": env.openai_api_key, "wordpress": env.wordpress_app_password,
                                               "approvals": approvals_token})
        self.authority = Authority(self.store)
        self._sessions = SessionsApi(env.openai, credentials)
        wordpress = WordPress(env.http, env.wordpress_url, env.wordpress_username, env.wordpress_app_password,
                              credentials)
        self.leases = Leases(self.store.path, env.worker_id, self._clock.now)
        self._current = ""
        wordpress.fence = lambda: self.leases.writing(self._current)
        approvals = Approvals(env.http, approvals_url, approvals_token, credentials)
        self.article = ArticleTools(self.store, wordpress, self.authority, self._clock.now,
                                    look_up_before_resending=not buggy)
        self.coding = Deliveries(self.store, self._sessions, self._clock.now)
        self._publisher = Publisher(self.store, wordpress, approvals, self.authority, self.article, self._clock.now,
                                    self._clock.unix)
        self._stopper = Stopper(self.store, self._sessions, self.article)
        self._quiet: dict[tuple[str, str], tuple[str, int]] = {}

    # -- the entry point ---------------------------------------------------------------------

    def advance(self, key: tuple[str, str]) -> Progress:
        job = self.store.job(*key)
        if job is None or not job.active:
            return Progress.idle()
        if not self.leases.hold(job.job_id):
            return Progress(False, LEASE_TTL_S)  # another worker works it; look again once its lease may have run out
        self._current = job.job_id
        try:
            progress = self._stopper.stop(job) if job.stopping else self._advance(job)
        except LeaseLost:
            return Progress(False, LEASE_TTL_S)  # taken over meanwhile: the new holder reconciles
        except JobStopped:
            return Progress(True, 0.0)  # cancelled or superseded meanwhile: the next look stops it
        except CredentialRevoked as exc:
            if job.workload == "coding" and self.coding.delivered(job):  # the work was done before the refusal
                self.store.settle(job, "completed", "the checked report was delivered before the key was refused")
                return Progress.done()
            return self._stopper.block(job, exc)
        except Transient:
            return Progress(False, self._poll(job, "error"))
        except Refused:
            return Progress(False, POLL_MAX_S)  # a read refused for now (e.g. a 404): look again later
        if progress.worked:
            self._quiet.pop(job.key, None)  # something changed: look again soon
        return progress

    def _advance(self, job: Job) -> Progress:
        if job.workload not in ("article", "coding"):
            self.store.settle(job, "failed", f"unsupported workload {job.workload!r}")
            return Progress.done()
        if job.session_id is None:
            return self._start(job)
        if job.tools_dirty:
            return self._declare_policy(job)
        if job.article_done:
            return self._await_approval(job)
        session = self._sessions.retrieve(job.session_id)
        if session.status == "requires_action":
            return self._act(job, session)
        if session.status == "idle":
            return self._turn_over(job, session)
        if session.status == "failed":
            return self._session_failed(job, session)
        return Progress(False, self._poll(job, f"{session.status}"))

    def _poll(self, job: Job, fingerprint: str) -> float:
        """The next poll: soon after a change, backing off while nothing changes."""
        last, quiet = self._quiet.get(job.key, ("", 0))
        quiet = quiet + 1 if last == fingerprint else 0
        self._quiet[job.key] = (fingerprint, quiet)
        return float(min(POLL_MAX_S, POLL_MIN_S * 2.0 ** min(quiet, 8)))

    def _now(self) -> float:
        return float(self._clock.now())

    # -- starting ----------------------------------------------------------------------------

    @staticmethod
    def _tools(job: Job) -> list[dict[str, Any]]:
        """The function tools to declare: the job's allowed tools (as they are now) that this control plane performs."""
        if job.workload == "article":
            return ArticleTools.tool_definitions(job.allowed_tools)
        return Deliveries.tool_definitions(job.allowed_tools)

    def _start(self, job: Job) -> Progress:
        metadata = {"job_id": job.job_id, "task_version": job.task_version}
        if job.session_requested_at is not None:
            found = self._sessions.find(metadata, requested_at=job.session_requested_at)
            if found is not None:
                self.store.set_session(job, found)
                return Progress(True, 0.0)
            waited = float(self._clock.unix()) - job.session_requested_at
            if waited < LISTING_SETTLE_S:  # listings are eventually consistent: give a new session time to show
                return Progress(False, LISTING_SETTLE_S - waited)
        self.authority.before_write(job.key)
        job = self.authority.current(job.key)
        self.store.mark_session_requested(job, float(self._clock.unix()))
        self.store.policy_declared(job)
        tools = self._tools(job)
        facts = {"job_id": job.job_id, "version": job.task_version, "inputs": json.dumps(dict(job.inputs), sort_keys=True)}
        if job.workload == "article":
            environment = {"type": "none"}
            task = _ARTICLE_TASK.format(**facts)
        else:
            environment = {"type": "openai_hosted"}
            task = _CODING_TASK.format(**facts)
        try:
            session_id = self._sessions.create(environment=environment, agent={"model": MODEL, "tools": tools},
                                               task=task, metadata=metadata)
        except Refused as exc:
            self.store.settle(job, "failed", f"the session could not be created: {exc}")
            return Progress.done()
        self.store.set_session(job, session_id)
        return Progress(True, POLL_MIN_S)

    def _declare_policy(self, job: Job) -> Progress:
        """The job's allowed tools changed: declare them to the agent as they are now."""
        assert job.session_id is not None
        self.authority.before_write(job.key)
        self.store.policy_declared(job)
        try:
            self._sessions.declare_tools(job.session_id, self._tools(self.authority.current(job.key)))
        except (Transient, Refused):
            self.store.policy_changed(job)  # declare them again on the next look
            raise
        return Progress(True, 0.0)

    # -- awaiting approval ---------------------------------------------------------------------

    def _await_approval(self, job: Job) -> Progress:
        step = self._publisher.advance(job)
        if step.published:
            self.store.settle(job, "completed", "published under an approval in force")
            return Progress.done()
        if step.human:
            return Progress.waiting_for_human(step.worked)
        return Progress(step.worked, max(step.wait_s, POLL_MIN_S))

    # -- answering the agent -----------------------------------------------------------------

    def _act(self, job: Job, session: Any) -> Progress:
        actions = [a for a in session.required_actions if a.type == "function_call"]
        if not actions:  # e.g. environment_connection: the sandbox comes back, or the turn fails
            kinds = ",".join(sorted(a.type for a in session.required_actions))
            return Progress(False, self._poll(job, f"requires_action:{kinds}"))
        progress = Progress(False, None)
        for action in actions:
            progress = progress.merge(self._handle(job, session, action))
        if progress.wait_s is None:
            return Progress(progress.worked, self._poll(job, "requires_action"))
        return progress

    def _handle(self, job: Job, session: Any, action: Any) -> Progress:
        call = self.store.call(action.call_id) or self.store.add_call(
            job, call_id=action.call_id, turn_id=action.turn_id, name=action.name,
            arguments=arguments_of(action.arguments))
        now = self._now()
        if call.status == "answered":
            # Accepted before, yet still pending: give the API a moment, then send the same answer again.
            elapsed = now - (call.answered_at or now)
            if elapsed < RESEND_GRACE_S:
                return Progress(False, RESEND_GRACE_S - elapsed)
            return self._send_answer(job, session, call)
        if call.status == "answering":
            if call.not_before > now:
                return Progress(False, call.not_before - now)
            return self._send_answer(job, session, call)
        decision = self._decide(job, session, call)
        if isinstance(decision, Wait):
            return Progress(decision.worked, decision.seconds)
        call = self.store.prepare_answer(call, decision.payload(), self._answer_key(job, call, decision))
        return self._send_answer(job, session, call)

    @staticmethod
    def _answer_key(job: Job, call: Call, answer: Answer) -> str:
        """The same key for the same answer; a new one when a different answer follows an earlier
        one (the API refuses a different body under a used key)."""
        base = f"{job.job_id}:{job.task_version}:result:{call.call_id}"
        if call.idempotency_key is None or call.answer == answer.payload():
            return call.idempotency_key or base
        generation = call.idempotency_key.rsplit("#", 1)[1] if "#" in call.idempotency_key else "1"
        return f"{base}#{int(generation) + 1}"

    def _decide(self, job: Job, session: Any, call: Call) -> Answer | Wait:
        if self.store.count_calls(job) > job.budget("max_tool_calls", 40):
            return Answer.fail("the job's tool-call budget is exhausted")
        job = self.authority.current(job.key)
        if call.name not in job.allowed_tools:
            return Answer.fail(f"the tool '{call.name}' is not among this job's allowed tools")
        if job.workload == "article":
            return self.article.perform(job, call)
        return self.coding.perform(job, session, call)

    def _send_answer(self, job: Job, session: Any, call: Call) -> Progress:
        assert call.answer is not None and call.idempotency_key is not None
        self.authority.before_write(job.key)
        try:
            self._sessions.answer(session.id, turn_id=call.turn_id, call_id=call.call_id, answer=call.answer,
                                  idempotency_key=call.idempotency_key)
        except NotPending:
            # Read the session before anything else: still pending means the API raced; send it again.
            fresh = self._sessions.retrieve(session.id)
            pending = {a.call_id for a in fresh.required_actions if a.type == "function_call"}
            if call.call_id in pending:
                self.store.note_call_attempt(call, self._now() + POLL_MIN_S)
                return Progress(True, POLL_MIN_S)
            self._settle_calls(job, [call])
            return Progress(True, 0.0)
        except Refused:
            # The API will not take this answer as it is; keep it and try again later, slowly.
            self.store.note_call_attempt(call, self._now() + POLL_MAX_S)
            return Progress(False, POLL_MAX_S)
        self.store.mark_answered(call, self._now())
        self.coding.on_answered(call.call_id)
        return Progress(True, 0.0)

    def _settle_calls(self, job: Job, calls: list[Call]) -> None:
        """Calls no longer pending: did their result reach the agent? The session's items say."""
        assert job.session_id is not None
        answered = self._sessions.answered_calls(job.session_id, [c.call_id for c in calls])
        for call in calls:
            if call.call_id in answered:
                self.store.mark_answered(call, self._now())
                self.coding.on_answered(call.call_id)
            else:
                self.store.mark_orphaned(call)

    # -- the turn is over ----------------------------------------------------------------------

    def _turn_over(self, job: Job, session: Any) -> Progress:
        message = self.store.last_message(job)
        if message is not None and message.state == "prepared":
            return self._say(job, message)
        turn = self._sessions.latest_root_turn(session.id)
        if turn is None or turn.status not in _TERMINAL_TURN:
            return Progress(False, self._poll(job, "idle:no-terminal-turn"))
        if message is not None and turn.id == message.after_turn_id:
            return Progress(False, self._poll(job, "idle:message-not-picked-up"))
        loose = self.store.unsettled_calls(job)
        if loose:
            self._settle_calls(job, loose)
        if job.workload == "coding":
            return self._judge_coding(job, turn)
        waiting = self.article.reconcile(job)
        if waiting is not None:
            return Progress(waiting.worked, waiting.seconds or POLL_MIN_S)
        job = self._reload(job)
        if self.article.complete(job):
            self.store.await_approval(job, "the draft and its images are in place; publishing awaits approval")
            return Progress(True, 0.0)
        failure = self.article.definite_failure(job)
        if failure is not None:
            self.store.settle(job, "failed", f"{failure.role} failed for good: {failure.error}")
            return Progress.done()
        missing = self.article.missing_tool(job)
        if missing is not None:
            self.store.settle(job, "failed", f"the article needs the tool '{missing}', which the job does not allow")
            return Progress.done()
        return self._resume(job, turn.id, "recovery_summary", self.article.recovery_summary(job))

    def _judge_coding(self, job: Job, turn: Any) -> Progress:
        if self.coding.delivered(job):
            self.store.settle(job, "completed", "the checked report was delivered")
            return Progress.done()
        if job.env_notice_needed:
            return self._resume(job, turn.id, "environment_replaced", ENVIRONMENT_REPLACED_NOTICE)
        self.store.settle(job, "failed", "the agent's turn ended without a deliverable report")
        return Progress.done()

    def _resume(self, job: Job, after_turn_id: str, kind: str, body: str) -> Progress:
        if job.resume_attempts >= job.budget("max_resume_attempts", 5):
            self.store.settle(job, "failed", f"not finished after {job.resume_attempts} resume attempts: given up")
            return Progress.done()
        return self._say(job, self.store.prepare_message(job, kind=kind, body=body, after_turn_id=after_turn_id))

    def _say(self, job: Job, message: Message) -> Progress:
        assert job.session_id is not None
        self.authority.before_write(job.key)
        try:
            self._sessions.say(job.session_id, message.body, message.msg_key)
        except Refused as exc:
            self.store.settle(job, "failed", f"the agent could not be told to resume: {exc}")
            return Progress.done()
        self.store.mark_message_sent(message)
        return Progress(True, POLL_MIN_S)

    def _session_failed(self, job: Job, session: Any) -> Progress:
        loose = self.store.unsettled_calls(job)
        if loose:
            self._settle_calls(job, loose)
        if job.workload == "coding" and self.coding.delivered(job):
            self.store.settle(job, "completed", "the checked report was delivered before the session failed")
            return Progress.done()
        if job.workload == "article":
            waiting = self.article.reconcile(job)
            if waiting is not None:
                return Progress(waiting.worked, waiting.seconds or POLL_MIN_S)
        self.store.settle(job, "failed", f"the session failed: {session.error or 'no reason given'}")
        return Progress.done()

    def _reload(self, job: Job) -> Job:
        fresh = self.store.job(*job.key)
        assert fresh is not None
        return fresh
