"""The reviewer's actions: grant, revoke or expire a publish approval; edit the approved content.

``approve`` binds the approval to the job, its current task version, the job's article as the
target and the digest of the article's content as it is at that instant (``expires_in_s``
optional). ``revoke_approval`` and ``expire_approval`` act on the newest approval of the job still
in force. ``edit_content`` changes the article after it was approved (a paragraph added by an
editor), so its digest no longer matches. Each returns None, and so has not fired, when there is
nothing to act on (no article yet; no approval in force).
"""

from __future__ import annotations

import hashlib
from typing import Any

from durable_harness.harness.actions._base import ActionContext, ScenarioAction, action_kind

__all__ = ["Approve", "EditContent", "ExpireApproval", "RevokeApproval"]

EDIT = "\n<p>Added by an editor after the approval.</p>"
_APPROVED = ({"kind": "approve", "when": "article_finished"},)  # what revoking, expiring or editing needs


def _article(world: ActionContext) -> dict[str, Any] | None:
    """The job's (current version's) live article, from the world's ground truth."""
    truth = world.truth()
    workload = world.workload
    articles = [e for e in workload.job_effects(truth, world.job) if e.kind == "post" and e.role == "article"
                and e.deleted_at is None]
    return dict(articles[0].record) if articles else None


def _in_force(world: ActionContext) -> Any:
    approvals = world.services["approvals"].fake.state
    now = world.clock.now()
    live = [a for a in approvals.select(job_id=str(world.job["job_id"])) if a.status_at(now) == "active"]
    return live[-1] if live else None


@action_kind("approve", "reviewer")
class Approve(ScenarioAction):
    workloads = ("article",)  # publishing, which approvals are for
    params_schema = {"expires_in_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 1000000}}

    def perform(self, world: ActionContext) -> dict[str, Any] | None:
        post = _article(world)
        if post is None:
            return None
        digest = hashlib.sha256(str(post.get("content", "")).encode("utf-8")).hexdigest()
        approval = world.services["approvals"].fake.state.grant(
            job_id=str(world.job["job_id"]), task_version=str(world.job["task_version"]), action="publish",
            target={"service": "wordpress", "type": "post", "id": int(post["id"])}, content_sha256=digest,
            granted_by="reviewer", expires_in_s=self.params.get("expires_in_s"))
        return {"approval_id": approval.id, "post_id": int(post["id"]), "task_version": approval.task_version,
                "content_sha256": digest, "expires_at_s": approval.expires_at_s}


@action_kind("revoke_approval", "reviewer")
class RevokeApproval(ScenarioAction):
    workloads = ("article",)
    requires = _APPROVED
    def perform(self, world: ActionContext) -> dict[str, Any] | None:
        approval = _in_force(world)
        if approval is None:
            return None
        world.services["approvals"].fake.state.revoke(approval.id, "reviewer")
        return {"approval_id": approval.id}


@action_kind("expire_approval", "reviewer")
class ExpireApproval(ScenarioAction):
    workloads = ("article",)
    requires = _APPROVED
    def perform(self, world: ActionContext) -> dict[str, Any] | None:
        approval = _in_force(world)
        if approval is None:
            return None
        world.services["approvals"].fake.state.expire(approval.id)
        return {"approval_id": approval.id}


@action_kind("edit_content", "reviewer")
class EditContent(ScenarioAction):
    workloads = ("article",)
    requires = _APPROVED
    def perform(self, world: ActionContext) -> dict[str, Any] | None:
        post = _article(world)
        if post is None:
            return None
        content = str(post.get("content", "")) + EDIT
        world.services["wordpress"].fake.edit_post(int(post["id"]), content=content, by="editor-2")
        return {"post_id": int(post["id"]), "content_sha256": hashlib.sha256(content.encode("utf-8")).hexdigest()}
