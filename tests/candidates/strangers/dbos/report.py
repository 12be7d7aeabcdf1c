"""The JobReport: our claims about a job, built from the database at the instant it is asked.

The checkpoint describes the newest task version and claims only what has evidence: a phase
whose writes the site confirmed, remote ids that were answered (or found by key), artifacts
that were accepted and answered. The ledger lists every write of the job, all versions, in the
order they were prepared (reads are not side effects and are left out).
"""

from __future__ import annotations

from typing import Any

from planner import article_phase, remote
from runtime import Runtime

STATES = ("PREPARED", "SENT", "CONFIRMED", "UNKNOWN", "FAILED")


def build(r: Runtime, job_id: str) -> dict[str, Any] | None:
    job = r.store.job(job_id)
    if job is None:
        return None
    row = r.store.newest(job_id)
    ops = r.ledger.for_job(job_id)
    operations = []
    for op in ops:
        if op.kind == "wp_get_post":
            continue
        entry: dict[str, Any] = {"operation_key": op.op_key, "kind": op.kind,
                                 "state": op.state if op.state in STATES else "UNKNOWN"}
        if op.remote_id is not None and op.remote_id.isdigit():
            entry["remote_id"] = op.remote_id
        if op.request_hash:
            entry["request_hash"] = op.request_hash
        operations.append(entry)
    if row is None:
        return {"job_id": job_id, "worker_id": r.settings.worker_id,
                "outcome": "cancelled" if job.cancelled else "running",
                "checkpoint": {"phase": "accepted", "artifacts": [], "remote": {},
                               "next_allowed_actions": [], "approval_status": "not_requested"},
                "operations": operations, "resume_attempts": 0}
    mine = [op for op in ops if op.version == row.version]
    if row.workload == "coding":
        phase = "delivered" if row.artifacts else (
            "session_started" if row.session_id else "accepted")
        rem: dict[str, Any] = {}
    else:
        phase = article_phase(row.job, mine, row.phase, row.session_id is not None)
        rem = remote(row.job, mine)
    outcome = "cancelled" if job.cancelled else row.outcome
    if outcome not in ("running", "completed", "failed", "unknown", "needs_human", "cancelled"):
        outcome = "failed"
    return {
        "job_id": job_id,
        "task_version": row.version,
        "session_id": row.session_id,
        "worker_id": r.settings.worker_id,
        "outcome": outcome,
        "checkpoint": {"phase": phase, "artifacts": row.artifacts, "remote": rem,
                       "next_allowed_actions": [], "approval_status": row.approval_status},
        "operations": operations,
        "resume_attempts": row.resume_attempts,
    }
