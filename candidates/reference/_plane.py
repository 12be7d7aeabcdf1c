"""The reference control plane: read first, reconcile, then continue.

Each ``step`` reads the state of every running job from its own database and from the session
(never from memory: a restarted instance is the same as a long-lived one), executes pending tool
calls through the ledger, answers them to the exact call_id with an idempotency key, and settles
the job when the agent's turn is over.

Deliberately out of scope here (later slices): streams, webhooks, leases and fencing, approvals,
cancellation of in-flight work.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import openai

from candidates.reference._agent import function_tools, task_prompt
from candidates.reference._coding import RERUN_MESSAGE, CodingTools
from candidates.reference._messages import CANCEL, recovery_summary, send, user_message
from candidates.reference._safeguards import Safeguards
from candidates.reference._store import JobRow, Store
from candidates.reference._tools import ToolOutcome, ToolRunner
from candidates.reference._wordpress import WordPress

__all__ = ["ReferencePlane"]

PHASES = ("accepted", "session_started", "media_uploaded", "draft_created", "post_updated", "seo_set", "verified",
          "awaiting_approval", "delivered")
_MAX_RERUNS = 2
_TOOL_PHASE = {"deliver_result": "delivered", "wp_upload_media": "media_uploaded", "wp_create_draft": "draft_created", "wp_update_post": "post_updated",
               "wp_set_seo": "seo_set", "wp_get_post": "verified"}
_ANSWER_ATTEMPTS = 4
_WAKE = ("agent.session.requires_action", "agent.session.idle", "agent.session.failed")


def _checkpoint(phase: str) -> dict[str, Any]:
    return {"phase": phase, "artifacts": [], "remote": {"wordpress_post_id": None, "media_ids": []},
            "next_allowed_actions": [], "approval_status": "not_requested"}


class ReferencePlane:
    def __init__(self, env: Any, safeguards: Safeguards | None = None) -> None:
        self.env = env
        self.sg = safeguards or Safeguards()
        self.store = Store(env.database_url)
        self.api: openai.OpenAI = env.openai
        wp = WordPress(env.http, env.wordpress_url, env.wordpress_username, env.wordpress_app_password)
        self.tools = ToolRunner(self.store, wp, env.clock.sleep, self.sg)
        self.coding = CodingTools(self.api, self.store, self.sg)
        self._seen: set[tuple[str, str]] = set()

    # -- control API -----------------------------------------------------------------------
    def submit(self, job: Mapping[str, Any]) -> Mapping[str, Any]:
        for key in ("job_id", "task_version", "workload", "input", "allowed_tools"):
            if key not in job:
                raise ValueError(f"job is missing {key!r}")
        new = self.store.add_job(job, _checkpoint("accepted"))
        return {"job_id": job["job_id"], "task_version": str(job["task_version"]), "accepted": True, "new": new}

    def cancel(self, job_id: str) -> Mapping[str, Any]:
        for job in self.store.jobs(job_id):
            if job.outcome == "running":
                self.store.update_job(job, outcome="cancelled")
        return {"job_id": job_id, "cancelled": True}

    def report(self, job_id: str) -> Mapping[str, Any]:
        rows = self.store.jobs(job_id)
        if not rows:
            return {"job_id": job_id, "outcome": "unknown", "error": "no such job"}
        job = rows[-1]
        return {
            "job_id": job.job_id, "task_version": job.task_version, "session_id": job.session_id,
            "worker_id": self.env.worker_id, "outcome": job.outcome, "checkpoint": dict(job.checkpoint),
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
                return 400
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
            self._finish(job, "failed", note=f"webhook {webhook_id}: the session failed")
        return 200

    def step(self) -> bool:
        progressed = False
        for job in self.store.jobs():
            if job.outcome == "running":
                progressed = self._step_job(job) or progressed
        return progressed

    def close(self) -> None:
        self.store.close()

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
            self._finish(job, "failed", note=f"session {job.session_id} no longer exists")
            return True
        except (openai.APIConnectionError, openai.APIStatusError):
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
            self._finish(job, "failed", note=f"session failed: {session.error}")
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
        except openai.APIConnectionError:
            if not self.sg.read_after_drop:  # the bug: "the turn is lost", start it over
                return self._resubmit(job, session_id)
            return True
        except openai.APIStatusError:
            return False
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
        except (openai.APIConnectionError, openai.APIStatusError):
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
            self._finish(self.store.jobs(job.job_id)[-1], "failed", note=f"resume budget of {budget} exhausted")
            return False
        return True

    def _ensure_session(self, job: JobRow) -> bool:
        meta = {"job_id": job.job_id, "task_version": job.task_version}
        try:  # read first: a session may exist already (a lost create response, a restart)
            existing = list(self.api.beta.agents.sessions.list(metadata=meta, order="asc", limit=100)) \
                if self.sg.resume_existing_session else []
        except (openai.APIConnectionError, openai.APIStatusError):
            return False
        if not existing:
            spec = job.spec
            agent: Any = {"model": "gpt-5.1", "instructions": "You are a careful editorial agent.",
                          "tools": function_tools(spec["allowed_tools"])}
            try:
                environment: Any = {"type": "openai_hosted"} if spec.get("workload") == "coding" else {"type": "none"}
                created = self.api.beta.agents.sessions.create(
                    environment=environment, agent=agent, input=task_prompt(spec), metadata=meta)
            except (openai.APIConnectionError, openai.APIStatusError):
                return True  # it may exist now: the next step lists again before creating
            if self.sg.resume_existing_session:
                return True  # the next step finds it by its metadata, like any other
            existing = [created]
        session_id = sorted(existing, key=lambda s: (s.created_at, s.id))[0].id
        checkpoint = {**job.checkpoint, "phase": "session_started"}
        self.store.update_job(job, session_id=session_id, phase="session_started", checkpoint=checkpoint)
        self._seen.add((job.job_id, job.task_version))
        return True

    def _handle_call(self, job: JobRow, session: Any, action: Any) -> bool:
        session_id = str(session.id)
        args = action.arguments
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                args = None
        if not isinstance(args, dict):
            outcome = ToolOutcome("failure", error="arguments are not a JSON object")
        elif action.name not in job.spec.get("allowed_tools", []):
            outcome = ToolOutcome("failure", error=f"tool {action.name!r} is not allowed for this job")
        elif action.name == "deliver_result":
            environment_id = getattr(session.environment, "id", None)
            outcome, rerun = self.coding.deliver_result(job, session_id, environment_id, args)
            if rerun:
                fresh = self.store.jobs(job.job_id)[-1]
                self.store.update_job(fresh, checkpoint={**fresh.checkpoint, "rerun_needed": True})
        else:
            outcome = self.tools.run(job, action.name, args)
        if outcome.status == "pending":
            return True
        if outcome.status == "success":
            self._advance(job, action.name, outcome)
        elif outcome.retryable:  # the turn will end on this failure; the job can still be resumed
            fresh = self.store.jobs(job.job_id)[-1]
            self.store.update_job(fresh, checkpoint={**fresh.checkpoint, "resume_needed": True})
        return self._answer(session_id, action, outcome)

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

    def _answer(self, session_id: str, action: Any, outcome: ToolOutcome) -> bool:
        event: Any = {"type": "agent.session.input.tool_result", "turn_id": action.turn_id,
                                 "call_id": action.call_id, "success": outcome.status == "success"}
        if outcome.status == "success":
            event["output"] = json.dumps(outcome.output, sort_keys=True)
        else:
            event["error"] = outcome.error or "failed"
        self.store.set_answer(session_id, action.call_id, outcome.operation_key, "SENT")
        for attempt in range(_ANSWER_ATTEMPTS):
            try:  # the same key on every retry: the sessions API dedupes it
                self.api.beta.agents.sessions.events.create(
                    session_id, events=[event], idempotency_key=f"{session_id}/{action.call_id}")
            except openai.BadRequestError as err:
                if "Unknown pending tool call" not in str(err):
                    self.store.set_answer(session_id, action.call_id, outcome.operation_key, "FAILED")
                    return True
                if not self._still_pending(session_id, action.call_id):
                    break  # it was answered (our earlier attempt landed)
            except (openai.APIConnectionError, openai.APIStatusError):
                pass
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
        except (openai.APIConnectionError, openai.APIStatusError):
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
        if job.phase == "delivered":
            self.store.update_job(job, outcome="completed")
            return True
        reruns = int(job.checkpoint.get("reruns", 0))
        if job.checkpoint.get("rerun_needed") and reruns < _MAX_RERUNS and job.session_id is not None:
            if not send(self.api, job.session_id, [user_message(RERUN_MESSAGE)], key=f"{job.session_id}/rerun/{reruns + 1}"):
                return False
            self.store.update_job(job, checkpoint={**job.checkpoint, "rerun_needed": False, "reruns": reruns + 1})
            return True
        self._finish(job, "failed", note=f"the agent finished at phase {job.phase!r} without a delivered result")
        return True

    def _finish(self, job: JobRow, outcome: str, note: str) -> None:
        self.store.update_job(job, outcome=outcome, note=note)
