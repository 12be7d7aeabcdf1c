"""The reference control plane: read first, reconcile, then continue.

Each ``step`` reads the state of every running job from its own database and from the session
(never from memory: a restarted instance is the same as a long-lived one), executes pending tool
calls through the ledger, answers them to the exact call_id with an idempotency key, and settles
the job when the agent's turn is over.

Authority comes first: a job awaiting approval publishes only under an approval in force now
(``_publish``); a cancellation is acknowledged durably and then settled (``_cancel``); a refused
credential stops the job, which then waits for a human; a new task version supersedes the old
one; a tool the job's allowed tools (as they are now) do not name is never executed.

Several workers may share the database: a job is worked only by the worker holding its lease, and
every write carries its fencing token (``_lease``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import openai

from durable_harness.candidates.reference._agent import WORKLOAD_TOOLS, function_tools, task_prompt
from durable_harness.candidates.reference._approvals import Approvals
from durable_harness.candidates.reference._cancel import cancel_job, cancelled_by_user, needs_settling, settle, stop
from durable_harness.candidates.reference._coding import RERUN_MESSAGE, CodingTools
from durable_harness.candidates.reference._guard import GuardedWordPress
from durable_harness.candidates.reference._lease import LEASE_TTL_S, LeaseLost, Leases
from durable_harness.candidates.reference._messages import CANCEL, REFUSED, once, raise_refusal, recovery_summary, send, user_message
from durable_harness.candidates.reference._publish import Publisher, awaiting_approval
from durable_harness.candidates.reference._safeguards import Safeguards
from durable_harness.candidates.reference._store import JobRow, Store
from durable_harness.candidates.reference._tools import ToolOutcome, ToolRunner

__all__ = ["ReferencePlane"]

PHASES = ("accepted", "session_started", "media_uploaded", "draft_created", "post_updated", "seo_set", "verified",
          "awaiting_approval", "delivered")
_MAX_RERUNS = 2
_TOOL_PHASE = {"deliver_result": "delivered", "wp_upload_media": "media_uploaded", "wp_create_draft": "draft_created", "wp_update_post": "post_updated",
               "wp_set_seo": "seo_set", "wp_get_post": "verified"}
_ANSWER_ATTEMPTS = 4
_WORK_DONE = ("seo_set", "verified")  # an article is complete once its SEO is set (the last write)
LISTING_WAIT_S = 60.0  # how long a session whose create was sent may take to show in a filtered listing
_WAKE = ("agent.session.requires_action", "agent.session.idle", "agent.session.failed")


def _checkpoint(phase: str) -> dict[str, Any]:
    return {"phase": phase, "artifacts": [], "remote": {"wordpress_post_id": None, "media_ids": []},
            "next_allowed_actions": [], "approval_status": "not_requested"}


class ReferencePlane:
    def __init__(self, env: Any, safeguards: Safeguards | None = None) -> None:
        self.env = env
        self.sg = safeguards or Safeguards()
        self.store = Store(env.database_url)
        self.leases = Leases(self.store, env.worker_id, env.clock.now, env.database_url, self.sg)
        self.lease_ttl_s = LEASE_TTL_S if self.sg.leases else None  # declared to the harness
        self.api: openai.OpenAI = env.openai
        self.wp = GuardedWordPress(env.http, env.wordpress_url, env.wordpress_username, env.wordpress_app_password,
                                   stopped=self._may_not_write, refused=self._credentials_refused,
                                   stop_on_refusal=self.sg.stop_on_refused_credentials,
                                   honour_stop=self.sg.no_writes_after_cancel, writing=self._write_entry)
        self.tools = ToolRunner(self.store, self.wp, self._sleep_holding, self.sg)
        self.coding = CodingTools(self.api, self.store, self.sg)
        self.publisher = Publisher(self.store, self.wp, Approvals(env.http, env.approvals_url, env.approvals_token),
                                   self.sg, self._published)
        self._seen: set[tuple[str, str]] = set()
        self._current: tuple[str, str] | None = None  # the job the current step works on
        self._cancelled_in_memory: set[str] = set()  # only a mutant keeps its cancellations here

    # -- control API -----------------------------------------------------------------------
    def submit(self, job: Mapping[str, Any]) -> Mapping[str, Any]:
        for key in ("job_id", "task_version", "workload", "input", "allowed_tools"):
            if key not in job:
                raise ValueError(f"job is missing {key!r}")
        version = str(job["task_version"])
        cancelled_before = cancelled_by_user(self.store, str(job["job_id"]))
        new = self.store.add_job(job, _checkpoint("accepted"))
        if new and cancelled_before and self.sg.cancel_survives_new_version:  # the job was cancelled: a new version does not reopen it
            fresh = next(j for j in self.store.jobs(str(job["job_id"])) if j.task_version == version)
            stop(self.store, fresh, "the user had cancelled the job before this version came", user=True)
        refused = next((str(j.checkpoint["blocked"]) for j in self.store.jobs(str(job["job_id"]))
                        if j.task_version != version and j.checkpoint.get("blocked")), None)
        if new and refused is not None and self.sg.stop_on_refused_credentials:  # a new version does not bring a
            fresh = next(j for j in self.store.jobs(str(job["job_id"])) if j.task_version == version)  # revoked key back
            self._block(fresh, refused)
        for known in self.store.jobs(str(job["job_id"])):
            if known.task_version == version and not new and known.spec.get("allowed_tools") != job["allowed_tools"]:
                self.store.update_job(known, spec={**known.spec, "allowed_tools": list(job["allowed_tools"])})
            elif known.task_version != version and new and self.sg.approval_bound_to_version:
                stop(self.store, known, f"superseded by task version {version}")  # its approvals never carry over
        return {"job_id": job["job_id"], "task_version": version, "accepted": True, "new": new}

    def cancel(self, job_id: str) -> Mapping[str, Any]:
        """The acknowledgement: durable before it returns (see ``_cancel``)."""
        if not self.sg.honour_cancel:  # the bug: acknowledged, and ignored
            return {"job_id": job_id, "cancelled": True}
        if not self.sg.persist_cancel:  # the bug: kept in memory only; a restart forgets it
            self._cancelled_in_memory.add(job_id)
            return {"job_id": job_id, "cancelled": True}
        return cancel_job(self.store, job_id)

    def report(self, job_id: str) -> Mapping[str, Any]:
        rows = self.store.jobs(job_id)
        if not rows:
            return {"job_id": job_id, "outcome": "unknown", "error": "no such job"}
        job = rows[-1]
        outcome = "cancelled" if job.job_id in self._cancelled_in_memory else job.outcome
        return {
            "job_id": job.job_id, "task_version": job.task_version, "session_id": job.session_id,
            "worker_id": self.env.worker_id, "outcome": outcome, "checkpoint": dict(job.checkpoint),
            "operations": [{"operation_key": o.operation_key, "kind": o.kind, "state": o.state,
                            "remote_id": o.remote_id, "request_hash": o.request_hash}
                           for o in self.store.ops(job.job_id, job.task_version)],
            "resume_attempts": job.resume_attempts,
        }

    def receive_webhook(self, headers: Mapping[str, str], body: bytes) -> int:
        """``POST /webhooks/openai``: verify, record, then act. Returns the HTTP status to answer."""
        if self.sg.verify_webhooks:
            try:
                self.api.webhooks.verify_signature(body, headers, secret=self.env.openai_webhook_secret)
            except (openai.InvalidWebhookSignatureError, ValueError):
                return 400 if self.sg.refuse_forged_webhooks else 200  # the bug: "fine, thanks" (ignored)
        try:
            event = json.loads(body)
            webhook_id, type_ = str(headers.get("webhook-id") or event["id"]), str(event["type"])
            session_id = str(event.get("data", {}).get("id", ""))
        except (ValueError, KeyError, TypeError, AttributeError):
            return 400
        if not self.store.first_sight_of_webhook(webhook_id, type_):
            return 200  # handled already: at-least-once delivery
        job = self.store.job_of_session(session_id)
        if job is not None and job.outcome == "running" and type_ == "agent.session.failed":
            self._session_lost(job, f"webhook {webhook_id}: the session failed")
        return 200

    def step(self) -> bool:
        progressed = False
        for job in self.store.jobs():
            if job.job_id in self._cancelled_in_memory or job.checkpoint.get("blocked"):
                continue
            if not self.leases.hold(job.job_id):
                continue  # another worker works it
            self._current = (job.job_id, job.task_version)
            try:
                if job.outcome == "running":
                    progressed = self._step_job(job) or progressed
                elif needs_settling(job):
                    progressed = settle(self.store, self.api, self.wp, job) or progressed
                elif awaiting_approval(job):
                    progressed = self.publisher.step(job) or progressed
            except LeaseLost:  # another worker took the job over: leave it to it
                continue
            except openai.PermissionDeniedError as err:  # 403: this request is refused for good; the key stands
                progressed = self._forbidden(job, err) or progressed
            except REFUSED as err:  # 401: the sessions API refused the key: stop, and wait for a human
                if self.sg.stop_on_refused_credentials:
                    self._block(job, f"the sessions API refused the key ({type(err).__name__})")
                    progressed = True
            finally:
                self._current = None
        return progressed

    def close(self) -> None:
        self.leases.close()
        self.store.close()

    # -- authority -------------------------------------------------------------------------
    def _write_entry(self) -> Any:
        """The write entry of the job the current step works on (``_lease``)."""
        from contextlib import nullcontext

        return self.leases.writing(self._current[0]) if self._current is not None else nullcontext({})

    def _sleep_holding(self, seconds: float) -> None:
        """A pause between two attempts of a tool: the lease is renewed after it, as at every step (a
        worker that waits on a Retry-After is alive; its lease must not run out under it). Raises
        ``LeaseLost`` when another worker took the job over meanwhile."""
        self.env.clock.sleep(seconds)
        if self._current is not None and not self.leases.hold(self._current[0]):
            raise LeaseLost(f"{self._current[0]}: taken over while this worker waited to try again")

    def _reread(self, job: JobRow) -> JobRow:
        return next((j for j in self.store.jobs(job.job_id) if j.task_version == job.task_version), job)

    def _fresh(self) -> JobRow | None:
        if self._current is None:
            return None
        return next((j for j in self.store.jobs(self._current[0]) if j.task_version == self._current[1]), None)

    def _may_not_write(self) -> str | None:
        """Why the job the current step works on may not write now (None: it may)."""
        job = self._fresh()
        if job is None:
            return None
        if job.outcome == "cancelled" or job.job_id in self._cancelled_in_memory:
            return "the job was cancelled"
        return "the job is blocked: " + str(job.checkpoint["blocked"]) if job.checkpoint.get("blocked") else None

    def _credentials_refused(self, reason: str) -> None:
        job = self._fresh()
        if job is not None and self.sg.stop_on_refused_credentials:
            self._block(job, reason)

    def _block(self, job: JobRow, reason: str) -> None:
        """A refused credential: the job stops here and waits for a human (unless it was cancelled)."""
        fresh = self._reread(job)
        outcome = fresh.outcome if fresh.outcome in ("cancelled", "completed") else "needs_human"
        if outcome != "cancelled" and fresh.spec.get("workload") == "coding" and self._delivered(fresh):
            outcome = "completed"  # the delivery was accepted: the work is done, whatever comes after
        self.store.update_job(fresh, outcome=outcome, note=reason, checkpoint={**fresh.checkpoint, "blocked": reason})

    def _forbidden(self, job: JobRow, err: openai.PermissionDeniedError) -> bool:
        """A 403 from the sessions API is definite (docs/contract.md): the request would fail the same
        way again, and the job cannot go on without it. A running job ends, as what the world shows
        (work done before stays done); a job that is settling or awaiting approval reads again later."""
        fresh = self._reread(job)
        if fresh.outcome != "running":
            return False
        self._session_lost(fresh, f"the sessions API refused a request for good (HTTP {err.status_code})")
        return True

    def _published(self, job: JobRow, changes: dict[str, Any]) -> None:
        self.store.update_job(job, phase="published", outcome="completed", checkpoint={**job.checkpoint, **changes})

    # -- one job ---------------------------------------------------------------------------
    def _step_job(self, job: JobRow) -> bool:
        if job.session_id is None:
            return self._ensure_session(job)
        resumed = (job.job_id, job.task_version) not in self._seen
        if resumed:
            self._seen.add((job.job_id, job.task_version))
            if not self._count_resume(job):
                return True
            if not self.sg.resume_existing_session:  # the bug: start over in a new session
                self.store.update_job(job, session_id=None)
                return self._ensure_session(self.store.jobs(job.job_id)[-1])
        try:
            session = self.api.beta.agents.sessions.retrieve(job.session_id)
        except openai.NotFoundError:
            self._session_lost(job, f"session {job.session_id} no longer exists")
            return True
        except (openai.APIConnectionError, openai.APIStatusError) as err:
            raise_refusal(err)
            return False  # read again on the next step; nothing was changed
        if resumed and not self._reconcile_answers(job, session):
            return True
        if session.status == "requires_action":
            if resumed and not self.sg.answer_pending_calls:
                return self._say_continue(job.session_id)
            progressed = False
            for action in session.required_actions:
                if action.type == "function_call":
                    progressed = self._handle_call(job, session, action) or progressed
            return progressed
        if session.status == "failed":
            self._session_lost(job, f"session failed: {session.error}")
            return True
        if session.status == "idle":
            return self._settle(job)
        return self._wait_on_stream(job, job.session_id)  # in_progress: the agent is thinking

    def _wait_on_stream(self, job: JobRow, session_id: str) -> bool:
        """Follow the session's event stream until it needs us (or ends); then read the state.

        The stream has no resume: after a drop, whatever it missed is read from the session on
        the next step. The task is never submitted again."""
        try:
            with self.api.beta.agents.sessions.events.stream(session_id) as stream:
                for event in stream:
                    if event.type in _WAKE:
                        return True
                    if event.type == "agent.session.turn.completed" and not self.sg.judge_by_ledger:
                        return self._settle(self.store.jobs(job.job_id)[-1])  # the bug: any completed turn ends the job
        except openai.APIStatusError as err:
            raise_refusal(err)
            return False
        except openai.APIError:  # the connection dropped, or the API ended the stream with an error event:
            if not self.sg.read_after_drop:  # the session has it all. The bug: "the turn is lost", start it over
                return self._resubmit(job, session_id)
            return True
        return False  # the stream ended without news: read the state again next step

    def _resubmit(self, job: JobRow, session_id: str) -> bool:
        """The bug of ``resubmit-on-drop``: cancel the turn and submit the task again."""
        send(self.api, session_id, [CANCEL, user_message(task_prompt(job.spec))])
        return True

    def _reconcile_answers(self, job: JobRow, session: Any) -> bool:
        """Tool results sent before a crash but never confirmed: did the agent get them?

        A call still pending is simply answered again (same idempotency key). Otherwise the
        receipt must be among the session's items: page through all of them, oldest first."""
        sent = self.store.answers_in_state(session.id, "SENT")
        pending = {a.call_id for a in session.required_actions if a.type == "function_call"}
        unresolved = [call_id for call_id in sent if call_id not in pending]
        if not unresolved:
            return True
        try:
            received = self._received_outputs(session.id)
        except (openai.APIConnectionError, openai.APIStatusError) as err:
            raise_refusal(err)
            return False  # read again on the next step
        for call_id in unresolved:
            if call_id in received:
                self.store.set_answer(session.id, call_id, None, "CONFIRMED")
            else:
                self._finish(job, "unknown", note=f"the result of call {call_id} is neither pending nor received")
                return False
        return True

    def _received_outputs(self, session_id: str) -> set[str]:
        items = self.api.beta.agents.sessions.items
        if self.sg.page_all_items:
            pages: Any = items.list(session_id, order="asc", limit=100)  # auto-paginates through every page
        else:  # the bug: the first page only
            pages = items.list(session_id, order="asc", limit=100).data
        return {str(item.call_id) for item in pages if getattr(item, "type", None) == "function_call_output"}

    def _count_resume(self, job: JobRow) -> bool:
        """A job with a session seen first by this instance is a resume; resumes are bounded."""
        attempts = job.resume_attempts + 1
        budget = int(job.spec.get("budget", {}).get("max_resume_attempts", 5))
        self.store.update_job(job, resume_attempts=attempts)
        if attempts > budget:
            self._give_up(self.store.jobs(job.job_id)[-1], f"resume budget of {budget} exhausted")
            return False
        return True

    def _give_up(self, job: JobRow, why: str) -> None:
        """No more work on the job. The outcome is still what the world shows: an article whose every
        write the ledger confirmed (its SEO set, the last write) awaits approval whatever went wrong
        after it."""
        open_ops = [o for o in self.store.ops(job.job_id, job.task_version) if o.state in ("UNKNOWN", "SENT")]
        if job.spec.get("workload") == "article" and job.phase in _WORK_DONE and not open_ops:
            checkpoint = {**job.checkpoint, "phase": "awaiting_approval", "approval_status": "awaiting",
                          "next_allowed_actions": ["request_publish_approval"]}
            self.store.update_job(job, phase="awaiting_approval", checkpoint=checkpoint, outcome="needs_human",
                                  note=f"{why}; the article was complete")
        else:
            self._finish(job, "failed", note=why)

    def _ensure_session(self, job: JobRow) -> bool:
        """Find the job's session, or create it once. Filtered listings lag (a new session may take a
        while to appear), so a create whose answer was lost (or a crash right after it) is waited
        for, up to ``LISTING_WAIT_S``, never answered by a second create on one empty listing."""
        meta = {"job_id": job.job_id, "task_version": job.task_version}
        try:  # read first: a session may exist already (a lost create response, a restart)
            existing = list(self.api.beta.agents.sessions.list(metadata=meta, order="asc", limit=100)) \
                if self.sg.resume_existing_session else []
        except (openai.APIConnectionError, openai.APIStatusError) as err:
            raise_refusal(err)
            return False
        if not existing:
            if self._may_not_write() is not None:  # cancelled (or blocked) while the listing was on its way
                return True
            sent_at = job.checkpoint.get("session_create_sent_at")
            if sent_at is not None and self.sg.wait_for_listing and self.env.clock.now() - float(sent_at) < LISTING_WAIT_S:
                return False  # an earlier create may still be on its way into the listing: wait for it
            self.store.update_job(job, checkpoint={**job.checkpoint, "session_create_sent_at": self.env.clock.now()})
            job = self._reread(job)
            spec = job.spec
            agent: Any = {"model": "gpt-5.1", "instructions": "You are a careful editorial agent.",
                          "tools": function_tools(spec["allowed_tools"] if self.sg.enforce_allowed_tools
                                                  else WORKLOAD_TOOLS.get(str(spec.get("workload")), ()))}
            try:
                environment: Any = {"type": "openai_hosted"} if spec.get("workload") == "coding" else {"type": "none"}
                created = once(self.api, self.sg).beta.agents.sessions.create(
                    environment=environment, agent=agent, input=task_prompt(spec), metadata=meta)
            except (openai.APIConnectionError, openai.APIStatusError) as err:
                raise_refusal(err)
                return True  # it may exist now: look for it (and wait for the listing) before creating again
            existing = [created]
        session_id = sorted(existing, key=lambda s: (s.created_at, s.id))[0].id
        checkpoint = {**job.checkpoint, "phase": "session_started"}
        self.store.update_job(job, session_id=session_id, phase="session_started", checkpoint=checkpoint)
        self._seen.add((job.job_id, job.task_version))
        return True

    def _handle_call(self, job: JobRow, session: Any, action: Any) -> bool:
        session_id = str(session.id)
        if self.store.answer_state(session_id, action.call_id) == "CONFIRMED":
            return False  # answered already, and the answer was accepted: a read that lags behind shows it waiting
        args = action.arguments
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                args = None
        if not isinstance(args, dict):
            outcome = ToolOutcome("failure", error="arguments are not a JSON object")
        elif action.name not in job.spec.get("allowed_tools", []) and self.sg.enforce_allowed_tools:
            outcome = ToolOutcome("failure", error=f"tool {action.name!r} is not allowed for this job")
        elif action.name == "deliver_result":
            environment_id = getattr(session.environment, "id", None)
            outcome, rerun = self.coding.deliver_result(job, session_id, environment_id, args)
            if rerun:
                fresh = self.store.jobs(job.job_id)[-1]
                self.store.update_job(fresh, checkpoint={**fresh.checkpoint, "rerun_needed": True})
        else:
            outcome = self.tools.run(job, action.name, args, call_id=str(action.call_id))
        if self._may_not_write() is not None:  # cancelled or blocked meanwhile: the agent gets no answer
            return True
        if outcome.status == "pending":
            return False  # nothing to answer yet (the sandbox is away, a lookup failed): wait, then look again
        if outcome.status == "success" and action.name == "deliver_result":
            # Delivered means the agent got our acceptance: the checkpoint moves once the answer is in
            # (a refused answer, a revoked key, leaves the work undelivered).
            answered = self._answer(session_id, action, outcome, recheck=lambda: self.coding.still_good(
                session_id, environment_id, args))
            if self.store.answer_state(session_id, action.call_id) == "CONFIRMED":
                self._advance(job, action.name, outcome)
            return answered
        if outcome.status == "success":
            self._advance(job, action.name, outcome)
        elif outcome.retryable:  # the turn will end on this failure; the job can still be resumed
            fresh = self.store.jobs(job.job_id)[-1]
            self.store.update_job(fresh, checkpoint={**fresh.checkpoint, "resume_needed": True})
        return self._answer(session_id, action, outcome)

    def _delivered(self, job: JobRow) -> bool:
        """Whether the coding job's accepted delivery reached the agent; the checkpoint catches up with
        an acceptance that did (a crash between the answer and the checkpoint)."""
        if job.phase == "delivered":
            return True
        key = f"{job.job_id}/v{job.task_version}/deliver"
        op = self.store.op(key)
        if job.session_id is None or op is None or op.state != "CONFIRMED" or not self.store.answer_confirmed_for(
                job.session_id, key):
            return False
        self._advance(job, "deliver_result", ToolOutcome("success", op.receipt, operation_key=key))
        return True

    def _advance(self, job: JobRow, tool: str, outcome: ToolOutcome) -> None:
        job = self.store.jobs(job.job_id)[-1]
        checkpoint = json.loads(json.dumps(job.checkpoint))
        output = outcome.output or {}
        if tool == "wp_upload_media" and output.get("media_id") not in checkpoint["remote"]["media_ids"]:
            checkpoint["remote"]["media_ids"].append(output.get("media_id"))
        if tool == "wp_create_draft":
            checkpoint["remote"]["wordpress_post_id"] = output.get("post_id")
        if tool == "deliver_result":
            checkpoint["artifacts"] = [{"role": "report", "sha256": output.get("sha256"),
                                        "uri": f"artifact://{job.session_id}/{output.get('artifact_id')}"}]
        if tool == "wp_get_post" and (output.get("post_id") != checkpoint["remote"]["wordpress_post_id"]
                                      or output.get("status") != "draft"):
            return  # the read-back does not match what we created: not verified
        phase = _TOOL_PHASE.get(tool, job.phase)
        if PHASES.index(phase) > PHASES.index(job.phase):
            checkpoint["phase"] = phase
            self.store.update_job(job, phase=phase, checkpoint=checkpoint)
        else:
            self.store.update_job(job, checkpoint=checkpoint)

    def _answer(self, session_id: str, action: Any, outcome: ToolOutcome,
                recheck: Callable[[], bool] | None = None) -> bool:
        """Send the tool result, with retries; ``recheck`` (a delivery's) is asked before each retry
        whether what was checked still holds: when it does not, the call is left to the next step,
        which checks it afresh (an acceptance sent after a pause must be true when it is sent)."""
        event: Any = {"type": "agent.session.input.tool_result", "turn_id": action.turn_id,
                                 "call_id": action.call_id, "success": outcome.status == "success"}
        if outcome.status == "success":
            event["output"] = json.dumps(outcome.output, sort_keys=True)
        else:
            event["error"] = outcome.error or "failed"
        self.store.set_answer(session_id, action.call_id, outcome.operation_key, "SENT")
        for attempt in range(_ANSWER_ATTEMPTS):
            if attempt and self.sg.no_writes_after_cancel and self._may_not_write() is not None:
                return True  # cancelled (or blocked) while the last attempt was on its way: no tool result after it
            if attempt and recheck is not None and not recheck():
                if outcome.operation_key is not None:  # what was accepted is not so any more: withdrawn
                    self.store.set_op(outcome.operation_key, "FAILED")
                return True  # still SENT: the next step finds the call pending and checks it again
            try:  # the same key on every retry: the sessions API dedupes it
                self.api.beta.agents.sessions.events.create(
                    session_id, events=[event], idempotency_key=f"{session_id}/{action.call_id}")
            except openai.BadRequestError as err:
                if "Unknown pending tool call" not in str(err):
                    self.store.set_answer(session_id, action.call_id, outcome.operation_key, "FAILED")
                    return True
                if not self._still_pending(session_id, action.call_id):
                    break  # it was answered (our earlier attempt landed)
            except (openai.APIConnectionError, openai.APIStatusError) as err:
                raise_refusal(err)
            else:
                break
            self.env.clock.sleep(0.5 * (attempt + 1))
        else:
            return True  # still SENT; the next step sees the call pending and answers again
        self.store.set_answer(session_id, action.call_id, outcome.operation_key, "CONFIRMED")
        return True

    def _still_pending(self, session_id: str, call_id: str) -> bool:
        try:
            session = self.api.beta.agents.sessions.retrieve(session_id)
        except (openai.APIConnectionError, openai.APIStatusError) as err:
            raise_refusal(err)
            return True
        return any(getattr(a, "call_id", None) == call_id for a in session.required_actions)

    def _say_continue(self, session_id: str) -> bool:
        """The bug of ``continue-instead-of-result``: what a human typing "continue" does (a waiting
        turn refuses a message, so it is cancelled first)."""
        if not send(self.api, session_id, [user_message("continue")]):
            send(self.api, session_id, [CANCEL, user_message("continue")])
        return True

    def _settle(self, job: JobRow) -> bool:
        """The agent's turn is over. Its completion is not the task's: judge by the ledger."""
        if job.spec.get("workload") == "coding":
            return self._settle_coding(job)
        if not self.sg.ignore_agent_text:  # the bug: the agent's own last words decide the outcome
            return self._settle_by_agent_text(job)
        if not self.sg.judge_by_ledger:  # the bug: a completed turn is taken as a finished job
            checkpoint = {**job.checkpoint, "phase": "awaiting_approval", "approval_status": "awaiting"}
            self.store.update_job(job, phase="awaiting_approval", checkpoint=checkpoint, outcome="needs_human")
            return True
        open_ops = [o for o in self.store.ops(job.job_id, job.task_version) if o.state in ("UNKNOWN", "SENT")]
        if open_ops:
            self._finish(job, "unknown", note=f"{len(open_ops)} operations with unknown outcome")
        elif job.phase == "verified":
            checkpoint = {**job.checkpoint, "phase": "awaiting_approval", "approval_status": "awaiting",
                          "next_allowed_actions": ["request_publish_approval"]}
            self.store.update_job(job, phase="awaiting_approval", checkpoint=checkpoint, outcome="needs_human")
        elif job.checkpoint.get("resume_needed") and int(job.checkpoint.get("recoveries", 0)) < _MAX_RERUNS:
            return self._send_recovery_summary(job)
        else:
            self._finish(job, "failed", note=f"the agent finished at phase {job.phase!r} without a verified draft")
        return True

    def _settle_by_agent_text(self, job: JobRow) -> bool:
        """The bug of ``trust-agent-text``: "the draft is ready", says the agent, so it is."""
        assert job.session_id is not None
        items = self.api.beta.agents.sessions.items.list(job.session_id, order="desc", limit=20)
        text = next((part.text for item in items.data if getattr(item, "type", None) == "message"
                     and getattr(item, "role", None) == "assistant" for part in (item.content or [])
                     if getattr(part, "text", None)), "")
        if "is ready" in text:
            checkpoint = {**job.checkpoint, "phase": "awaiting_approval", "approval_status": "awaiting"}
            self.store.update_job(job, phase="awaiting_approval", checkpoint=checkpoint, outcome="needs_human")
        else:
            self._finish(job, "failed", note=f"the agent says: {text[:200]}")
        return True

    def _send_recovery_summary(self, job: JobRow) -> bool:
        """Resume a turn that ended on a transient failure: tell the agent what is done, with the
        receipts from the ledger, so it continues from the first step that is not (never "continue")."""
        recoveries = int(job.checkpoint.get("recoveries", 0)) + 1
        text = recovery_summary(self.store.ops(job.job_id, job.task_version))
        assert job.session_id is not None
        if not send(self.api, job.session_id, [user_message(text)], key=f"{job.session_id}/recovery/{recoveries}"):
            return False
        self.store.update_job(job, checkpoint={**job.checkpoint, "resume_needed": False, "recoveries": recoveries})
        return True

    def _settle_coding(self, job: JobRow) -> bool:
        if self._delivered(job):
            self.store.update_job(self.store.jobs(job.job_id)[-1], outcome="completed")
            return True
        reruns = int(job.checkpoint.get("reruns", 0))
        if job.checkpoint.get("rerun_needed") and reruns < _MAX_RERUNS and job.session_id is not None:
            if not send(self.api, job.session_id, [user_message(RERUN_MESSAGE)], key=f"{job.session_id}/rerun/{reruns + 1}"):
                return False
            self.store.update_job(job, checkpoint={**job.checkpoint, "rerun_needed": False, "reruns": reruns + 1})
            return True
        self._finish(job, "failed", note=f"the agent finished at phase {job.phase!r} without a delivered result")
        return True

    def _session_lost(self, job: JobRow, why: str) -> None:
        """The session failed or is gone: the job fails, unless its work was done before (a delivery the
        agent accepted stays accepted; the session's end does not undo it)."""
        fresh = self._reread(job)  # judged as it stands now, and written to this version, not the newest
        if fresh.outcome == "cancelled":
            return  # the user's cancellation stands, whatever ended the session (it came in meanwhile)
        if fresh.spec.get("workload") == "coding" and self._delivered(fresh):
            self.store.update_job(fresh, outcome="completed", note=f"{why}, after the delivery")
        else:
            self._give_up(fresh, why)

    def _finish(self, job: JobRow, outcome: str, note: str) -> None:
        self.store.update_job(job, outcome=outcome, note=note)
