"""The JobReport: what this control plane claims about a job, built only from its own store.

Claims follow evidence: a remote id appears once its write is CONFIRMED, a phase once the ledger
holds what it names (the phases of the article workload are a prefix of the workload's steps, so
they never move backwards), ``awaiting_approval`` once the article was judged done, ``published``
(and ``approval_status: approved``) once it was published under an approval in force. The ledger is
reported as it stands, UNKNOWN included.
"""

from __future__ import annotations

from typing import Any

from tests.candidates.strangers.polling.article import ArticleTools
from tests.candidates.strangers.polling.coding import Deliveries
from tests.candidates.strangers.polling.records import Job
from tests.candidates.strangers.polling.store import Store

__all__ = ["build_report", "unknown_job_report"]


def unknown_job_report(job_id: str, worker_id: str) -> dict[str, Any]:
    return {"job_id": job_id, "task_version": None, "session_id": None, "worker_id": worker_id, "outcome": "unknown",
            "checkpoint": {"phase": None, "artifacts": [], "remote": {}, "next_allowed_actions": [],
                           "approval_status": None},
            "operations": [], "resume_attempts": 0}


def build_report(store: Store, article: ArticleTools, coding: Deliveries, job: Job, worker_id: str) -> dict[str, Any]:
    remote: dict[str, Any] = {}
    artifacts: list[dict[str, str]] = []
    approval: str | None = None
    if job.workload == "coding":
        artifacts = coding.delivered(job)
        phase = "delivered" if artifacts else ("session_started" if job.session_id else "accepted")
    else:
        phase = article.phase(job)
        post_id = article.post_id(job)
        if post_id is not None:
            remote["wordpress_post_id"] = post_id
        media = article.media_ids(job)
        if media:
            remote["media_ids"] = media
        approval = {"published": "approved", "awaiting_approval": "awaiting"}.get(phase, "not_requested")
    operations = [{"operation_key": op.op_key, "kind": op.kind, "state": op.state, "remote_id": op.remote_id,
                   "request_hash": op.request_hash} for op in store.operations(job)]
    return {"job_id": job.job_id, "task_version": job.task_version, "session_id": job.session_id,
            "worker_id": worker_id, "outcome": job.outcome,
            "checkpoint": {"phase": phase, "artifacts": artifacts, "remote": remote, "next_allowed_actions": [],
                           "approval_status": approval},
            "operations": operations, "resume_attempts": job.resume_attempts}
