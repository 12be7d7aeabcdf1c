"""The JobReport: the control plane's claims, built from its database alone.

The outcome is classified from the ledger and from what was read of the world, never from how the
run went or from the agent's words: ``cancelled`` once the user's cancellation was recorded;
``completed`` once the publish (article) or an accepted, checked delivery (coding) is in the
ledger; ``needs_human`` for an article verified as finished (it awaits approval) or a job whose
credential was revoked before it finished; ``failed`` for work given up; ``running`` otherwise.

The phase is the furthest milestone whose evidence the ledger holds, together with every milestone
before it, so it never runs ahead of the world and never moves backwards. ``operations`` lists
every WordPress write of the job, all task versions.
"""

from __future__ import annotations

import json
from typing import Any

from .article import Article, image_count
from .jobs import Job, Jobs
from .outbox import Outbox
from .store import Store

ARTICLE_PHASES = ["accepted", "session_started", "media_uploaded", "draft_created", "post_updated",
                  "seo_set", "verified", "awaiting_approval", "published"]


def outcome_of(job: Job, store: Store, article: Article) -> str:
    if job.cancelled:
        return "cancelled"
    if job.workload == "coding":
        if job.row["delivered"]:
            return "completed"
        if store.flag("revoked:openai") is not None:
            return "needs_human"
        return "failed" if job.row["failed_reason"] else "running"
    if article.confirmed(job, "publish"):
        return "completed"
    if job.row["verified"]:
        return "needs_human"
    if store.flag("revoked:wordpress") is not None or store.flag("revoked:openai") is not None:
        return "needs_human"
    return "failed" if job.row["failed_reason"] else "running"


def article_phase(job: Job, article: Article) -> str:
    rows = article.rows(job)
    done = {role for role, row in rows.items() if row["state"] == "CONFIRMED"}
    images = {f"image:{i}" for i in range(1, image_count(job) + 1)}
    evidence = [
        True,
        job.row["session_state"] == "CONFIRMED",
        images <= done,
        "article" in done,
        "article:update" in done,
        "article:seo" in done,
        bool(job.row["verified"]),
        bool(job.row["verified"]),
        "publish" in done,
    ]
    phase = "accepted"
    for name, ok in zip(ARTICLE_PHASES, evidence):
        if not ok:
            break
        phase = name
    return phase


def build_report(job_id: str, *, jobs: Jobs, store: Store, outbox: Outbox, article: Article,
                 worker_id: str, owner: str | None) -> dict[str, Any]:
    job = jobs.load(job_id)
    if job is None:
        cancelled = jobs.is_cancelled(job_id)
        return {"job_id": job_id, "outcome": "cancelled" if cancelled else "running",
                "worker_id": worker_id, "operations": [], "resume_attempts": 0,
                "checkpoint": {"phase": "accepted", "artifacts": [], "remote": {},
                               "next_allowed_actions": [], "approval_status": "not_requested"}}
    outcome = outcome_of(job, store, article)
    remote: dict[str, Any] = {}
    artifacts: list[dict[str, Any]] = []
    approval = "not_requested"
    if job.workload == "article":
        phase = article_phase(job, article)
        post_id = article.post_id(job)
        if post_id is not None:
            remote["wordpress_post_id"] = post_id
        remote["media_ids"] = article.media_ids(job)
        if phase == "published":
            approval = "approved"
        elif phase == "awaiting_approval":
            approval = "awaiting"
    else:
        phase = "session_started" if job.row["session_state"] == "CONFIRMED" else "accepted"
        if job.row["delivered"]:
            phase = "delivered"
            delivered = json.loads(job.row["delivered"])
            artifacts.append({"role": "report", "uri": str(delivered.get("uri")),
                              "sha256": str(delivered.get("sha256"))})
    operations = [{"operation_key": r["op_key"], "kind": r["kind"], "state": r["state"],
                   "remote_id": r["remote_id"], "request_hash": r["request_hash"]}
                  for r in outbox.for_job(job_id) if r["is_write"]]
    for op in operations:
        if op["remote_id"] is None:
            del op["remote_id"]
    next_actions: list[str] = []
    if outcome == "needs_human" and phase == "awaiting_approval":
        next_actions = ["wp_publish (under an approval in force)"]
    return {
        "job_id": job_id, "task_version": job.version, "session_id": job.session_id,
        "worker_id": owner or worker_id, "outcome": outcome,
        "checkpoint": {"phase": phase, "artifacts": artifacts, "remote": remote,
                       "next_allowed_actions": next_actions, "approval_status": approval},
        "operations": operations, "resume_attempts": int(job.row["resume_attempts"]),
        "failure": job.row["failed_reason"], "needs_human": job.row["needs_human_reason"],
    }
