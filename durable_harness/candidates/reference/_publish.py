"""Publishing a job's draft under an approval, one look per step while the job awaits it.

An approval counts when it is in force now for this job, this task version and this post, and its
digest matches the post's content as it is now (read back, ``context=edit``). The publish is a
ledgered write (``<job>/v<version>/publish``); before it is sent, and before every retry, the
approval is looked up again; an unknown outcome is settled by reading the post's status. A refused
approvals token stops the looking (the job waits for a human).

What it deliberately does not do: publish without an approval, or keep one it saw earlier.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from durable_harness.candidates.reference._approvals import ApprovalRefused, Approvals, content_digest
from durable_harness.candidates.reference._safeguards import Safeguards
from durable_harness.candidates.reference._store import JobRow, Store
from durable_harness.candidates.reference._wordpress import Definite, Indefinite, WordPress

__all__ = ["Publisher", "awaiting_approval"]


def awaiting_approval(job: JobRow) -> bool:
    cp = job.checkpoint
    return (job.outcome == "needs_human" and job.phase == "awaiting_approval" and not cp.get("blocked")
            and not cp.get("approvals_refused") and (cp.get("remote") or {}).get("wordpress_post_id") is not None)


class Publisher:
    def __init__(self, store: Store, wp: WordPress, approvals: Approvals, safeguards: Safeguards,
                 finish: Callable[[JobRow, dict[str, Any]], None]) -> None:
        self.store = store
        self.wp = wp
        self.approvals = approvals
        self.sg = safeguards
        self._finish = finish  # (job, checkpoint changes) -> the job is published

    def step(self, job: JobRow) -> bool:
        """One look: publish if an approval is in force now. Returns whether anything changed."""
        post_id = int(job.checkpoint["remote"]["wordpress_post_id"])
        key = f"{job.job_id}/v{job.task_version}/publish"
        op = self.store.op(key)
        try:
            if op is not None and op.state in ("SENT", "UNKNOWN"):  # settle it by reading the post's status
                if self._published(post_id):
                    self.store.set_op(key, "CONFIRMED", remote_id=str(post_id), receipt={"post_id": post_id})
                else:
                    self.store.set_op(key, "FAILED")  # looked up: it was not applied
                op = self.store.op(key)
            if op is not None and op.state == "CONFIRMED":
                self._finish(job, {"phase": "published", "approval_status": "approved"})
                return True
            approval = self._approval(job, post_id)
        except ApprovalRefused:
            self.store.update_job(job, checkpoint={**job.checkpoint, "approvals_refused": True},
                                  note="the approval authority refused the token: a human must act")
            return True
        except (Definite, Indefinite, httpx.HTTPError):
            return False  # nothing changed; look again next step
        if approval is None:
            return False
        return self._publish(job, key, post_id, approval)

    def _approval(self, job: JobRow, post_id: int) -> dict[str, Any] | None:
        if not self.sg.require_approval:  # the bug: publish as soon as the draft awaits approval
            return {"id": "none"}
        cached = job.checkpoint.get("approval")
        if cached and not self.sg.recheck_approval:  # the bug: an approval seen once is trusted for good
            return dict(cached)
        version = job.task_version if self.sg.approval_bound_to_version else None
        candidates = self.approvals.for_target(job.job_id, version, post_id)
        if not candidates:
            return None
        if self.sg.approval_bound_to_digest:
            digest = content_digest(_raw(self.wp.get_post(post_id).get("content")))
            candidates = [a for a in candidates if a.get("content_sha256") == digest]
        if not candidates:
            return None
        approval = dict(candidates[-1])
        self.store.update_job(job, checkpoint={**job.checkpoint, "approval": {"id": approval.get("id")}})
        return approval

    def _publish(self, job: JobRow, key: str, post_id: int, approval: dict[str, Any]) -> bool:
        if self.store.op(key) is None:
            self.store.prepare(key, job, "wp_publish", json.dumps({"post_id": post_id, "approval": approval.get("id")}))
        self.store.set_op(key, "SENT", attempt=True)
        try:
            self.wp.update_post(post_id, {"status": "publish"})
        except Definite:
            self.store.set_op(key, "FAILED")
            return True
        except Indefinite:
            self.store.set_op(key, "UNKNOWN")  # settled next step by reading the post's status
            return True
        self.store.set_op(key, "CONFIRMED", remote_id=str(post_id), receipt={"post_id": post_id})
        fresh = self.store.jobs(job.job_id)
        self._finish(next(j for j in fresh if j.task_version == job.task_version),
                     {"phase": "published", "approval_status": "approved"})
        return True

    def _published(self, post_id: int) -> bool:
        return str(self.wp.get_post(post_id).get("status")) == "publish"


def _raw(field: Any) -> str:
    return str(field.get("raw", field.get("rendered", ""))) if isinstance(field, dict) else str(field or "")
