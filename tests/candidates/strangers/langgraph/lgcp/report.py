"""The JobReport: our claims about a job, each backed by evidence already recorded.

Phases are derived from the ledger (a phase is claimed only once the writes it needs are
CONFIRMED, so it can never run ahead of the world nor move backwards), the outcome from the
ledger, the cancellation, the revoked credentials and the verdict kept in the job's LangGraph
checkpoint. The report describes the newest task version; the ledger lists every version's writes.
"""

from __future__ import annotations

from typing import Any

from .deps import Deps, article_finished, confirmed, job_images
from .graph import thread_config
from .ledger import Operation

ARTICLE_PHASES = ("accepted", "session_started", "media_uploaded", "draft_created", "post_updated",
                  "seo_set", "awaiting_approval", "published")


def _article_phase(ops: dict[str, Operation], images: int, session: bool) -> str:
    evidence = {
        "accepted": True,
        "session_started": session,
        "media_uploaded": all(confirmed(ops, f"image:{n}") for n in range(1, images + 1)),
        "draft_created": confirmed(ops, "article") is not None,
        "post_updated": confirmed(ops, "article:update") is not None,
        "seo_set": confirmed(ops, "article:seo") is not None,
        "awaiting_approval": article_finished(ops, images),
        "published": confirmed(ops, "article:publish") is not None,
    }
    phase = "accepted"
    for name in ARTICLE_PHASES:
        if not evidence[name]:
            break
        phase = name
    return phase


def _id(value: str | None) -> int | str | None:
    if value is None:
        return None
    return int(value) if value.isdigit() else value


def build_report(deps: Deps, graph: Any, job_id: str) -> dict[str, Any] | None:
    """The contract's JobReport for `job_id`, or None when the job is unknown."""
    job = deps.store.job(job_id)
    if job is None or not job["newest_version"]:
        return None
    version = job["newest_version"]
    row = deps.store.version(job_id, version) or {}
    doc = row.get("job") or {}
    values: dict[str, Any] = graph.get_state(thread_config(job_id, version)).values or {}
    session_id = (deps.store.session(job_id, version) or {}).get("session_id")
    all_ops = deps.ledger.for_job(job_id)
    ops = {op.role: op for op in all_ops if op.version == version}
    holder = deps.leases.holder(job_id)
    revoked = deps.store.revoked()
    cancelled = job["cancelled_at"] is not None
    verdict = str(values.get("verdict") or "")
    checkpoint: dict[str, Any] = {"next_allowed_actions": [], "artifacts": [], "remote": {}}

    if job["workload"] == "coding":
        delivered = values.get("delivered")
        checkpoint["phase"] = "delivered" if delivered else ("session_started" if session_id else "accepted")
        checkpoint["approval_status"] = "not_requested"
        if delivered:
            checkpoint["artifacts"] = [{"role": "report", "uri": delivered["uri"], "sha256": delivered["sha256"]}]
        outcome = ("completed" if delivered else "failed" if verdict == "failed"
                   else "needs_human" if "openai" in revoked else "running")
    else:
        images = job_images(doc)
        phase = _article_phase(ops, images, bool(session_id))
        checkpoint["phase"] = phase
        checkpoint["approval_status"] = ("approved" if phase == "published" else
                                         "awaiting" if phase == "awaiting_approval" else "not_requested")
        article = confirmed(ops, "article")
        media = [_id(op.remote_id) for n in range(1, images + 1)
                 if (op := confirmed(ops, f"image:{n}")) is not None]
        checkpoint["remote"] = {"media_ids": media}
        if article is not None:
            checkpoint["remote"]["wordpress_post_id"] = _id(article.remote_id)
        if phase == "published":
            outcome = "completed"
        elif phase == "awaiting_approval":
            outcome = "needs_human"
        elif verdict == "failed":
            outcome = "failed"
        elif revoked & {"openai", "wordpress"}:
            outcome = "needs_human"
        else:
            outcome = "running"
    if cancelled:
        outcome = "cancelled"
    return {
        "job_id": job_id,
        "task_version": version,
        "session_id": session_id,
        "worker_id": holder["worker_id"] if holder else deps.settings.worker_id,
        "outcome": outcome,
        "checkpoint": checkpoint,
        "operations": [op.report() for op in all_ops if op.kind != "wp_get_post"],
        "resume_attempts": int(values.get("messages") or 0),
        "reason": str(values.get("reason") or ""),
    }
