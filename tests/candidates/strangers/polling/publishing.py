"""Publishing a finished article, only under an approval in force now.

A finished article waits for a reviewer (outcome ``needs_human``, phase ``awaiting_approval``). On
each look, and again before every attempt to publish (a retry included), this module:

1. settles an earlier attempt whose outcome is unknown by reading the post (a read, never a retry);
2. asks the approval authority for approvals in force now for this job, this task version, the
   ``publish`` action and this post;
3. reads the post as it is now (``context=edit``) and keeps only an approval whose
   ``content_sha256`` is the sha256 of the post's raw content;
4. asks the job's authority (not cancelled, not superseded, ``wp_publish`` allowed now), and only
   then writes the ledger entry (SENT) and publishes.

Without such an approval nothing is written, however long the job waits.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tests.candidates.strangers.polling.approvals import Approval, Approvals, ApprovalsUnavailable
from tests.candidates.strangers.polling.article import PUBLISH_KIND, ArticleTools
from tests.candidates.strangers.polling.authority import Authority, ToolNotAllowed
from tests.candidates.strangers.polling.records import Job, Operation
from tests.candidates.strangers.polling.store import Store
from tests.candidates.strangers.polling.wordpress import WordPress

__all__ = ["PublishStep", "Publisher"]

MAX_ATTEMPTS = 5
RETRY_S = 5.0
UNAVAILABLE_RETRY_S = 10.0


@dataclass(frozen=True)
class PublishStep:
    """What one look achieved: ``published``; else wait ``wait_s`` (time) or, when ``human``, for a person."""

    worked: bool
    published: bool = False
    wait_s: float = 0.0
    human: bool = False
    note: str = ""


def content_digest(post: Mapping[str, object]) -> str:
    """The sha256 (hex) of the post's raw content, as the approval authority binds it."""
    content = post.get("content")
    raw = content.get("raw") if isinstance(content, Mapping) else content
    return hashlib.sha256(str(raw if raw is not None else "").encode()).hexdigest()


class Publisher:
    """Looks for an approval in force and publishes under it."""

    def __init__(self, store: Store, wordpress: WordPress, approvals: Approvals, authority: Authority,
                 article: ArticleTools, now: Callable[[], float], unix: Callable[[], float]) -> None:
        self._store = store
        self._wp = wordpress
        self._approvals = approvals
        self._authority = authority
        self._article = article
        self._now = now
        self._unix = unix

    def advance(self, job: Job) -> PublishStep:
        post_id = self._article.post_id(job)
        if post_id is None:  # pragma: no cover - a finished article has its post
            return PublishStep(False, human=True, note="no post")
        op = self._operation(job)
        if op is not None and op.state == "CONFIRMED":
            return PublishStep(False, published=True)
        if op is not None and op.state in ("SENT", "UNKNOWN"):
            waiting = self._article.settle_by_read(job, op)
            if waiting is not None:
                return PublishStep(False, wait_s=waiting.seconds)
            op = self._operation(job)
            if op is not None and op.state == "CONFIRMED":
                return PublishStep(True, published=True)
        if op is not None and op.state == "FAILED" and op.definitive:
            return PublishStep(False, human=True, note=f"publishing was refused: {op.error}")
        now = self._now()
        if op is not None and op.not_before > now:
            return PublishStep(False, wait_s=op.not_before - now)
        if op is not None and op.attempts >= MAX_ATTEMPTS:
            return PublishStep(False, human=True, note=f"publishing failed {op.attempts} times: {op.error}")
        if not self._authority.tool_allowed(job.key, PUBLISH_KIND):
            return PublishStep(False, human=True, note="the job does not allow publishing")
        try:
            approvals = self._approvals.in_force(job_id=job.job_id, task_version=job.task_version, post_id=post_id,
                                                 now_unix=self._unix())
        except ApprovalsUnavailable as exc:
            return PublishStep(False, wait_s=UNAVAILABLE_RETRY_S, note=str(exc))
        if not approvals:
            return PublishStep(False, human=True, note="no approval in force")
        post = self._wp.get_post(post_id)
        if post.reading != "ok" or not isinstance(post.body, Mapping):
            return PublishStep(False, wait_s=UNAVAILABLE_RETRY_S, note=f"the post cannot be read: {post.error}")
        digest = content_digest(post.body)
        matching = [a for a in approvals if a.content_sha256 == digest]
        if not matching:
            return PublishStep(False, human=True, note="no approval in force covers the post's content as it is now")
        return self._publish(job, post_id, matching[0], digest, op)

    def _operation(self, job: Job) -> Operation | None:
        return next((op for op in self._store.operations(job) if op.kind == PUBLISH_KIND), None)

    def _publish(self, job: Job, post_id: int, approval: Approval, digest: str, op: Operation | None) -> PublishStep:
        try:
            self._authority.before_write(job.key, PUBLISH_KIND)
        except ToolNotAllowed:
            return PublishStep(False, human=True, note="the job does not allow publishing")
        self._wp.ready()
        if op is None:
            op = self._store.prepare_operation(
                job, op_key=f"{job.job_id}:{job.task_version}:article:publish", role="article:publish",
                kind=PUBLISH_KIND, match_key="article:publish", request_hash=digest,
                request={"post_id": post_id, "status": "publish"}, call_id="")
        self._store.note_approval(op, approval.approval_id, digest)
        self._store.mark_sent(op)
        outcome = self._wp.publish(post_id)
        if outcome.reading == "ok":
            self._store.confirm(op, str(post_id), {"post_id": post_id, "status": "publish",
                                                   "approval_id": approval.approval_id})
            return PublishStep(True, published=True)
        if outcome.reading == "revoked":
            self._store.fail(op, outcome.error, definitive=True)
            raise self._wp.refused(outcome)
        if outcome.reading == "definite":
            self._store.fail(op, outcome.error, definitive=True)
            return PublishStep(True, human=True, note=f"publishing was refused: {outcome.error}")
        delay = outcome.retry_after_s if outcome.retry_after_s is not None else RETRY_S
        if outcome.reading == "not_sent":
            self._store.fail(op, outcome.error, definitive=False, not_before=self._now() + delay)
        else:
            self._store.mark_unknown(op, outcome.error, not_before=self._now() + delay)
        return PublishStep(True, wait_s=delay, note=outcome.error)
