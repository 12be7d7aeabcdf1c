"""Reads and writes of the job state: jobs, task versions, answered calls, refusals, webhooks.

Every function commits its own short transaction; nothing here holds a transaction across an
HTTP call. The ledger of side effects is in ``ledger.py`` and the lease in ``lease.py``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as pg_insert

from schema import answered, jobs, refusals, versions, webhooks

TERMINAL = ("completed", "failed", "cancelled")


@dataclass(frozen=True)
class VersionRow:
    """One task version of a job, as stored."""

    job_id: str
    version: str
    seq: int
    job: dict[str, Any]
    allowed_tools: list[str]
    workflow_id: str
    session_id: str | None
    session_create_at: float | None
    outcome: str
    phase: str
    approval_status: str
    resume_attempts: int
    msg_root_turns: int
    artifacts: list[dict[str, Any]]
    stale_delivery: str | None
    finished: bool
    note: str | None

    @property
    def workload(self) -> str:
        return str(self.job.get("workload") or "article")


def _version(row: Any) -> VersionRow:
    m = row._mapping
    return VersionRow(
        job_id=m["job_id"], version=m["version"], seq=m["seq"], job=json.loads(m["job_json"]),
        allowed_tools=json.loads(m["allowed_tools"]), workflow_id=m["workflow_id"],
        session_id=m["session_id"], session_create_at=m["session_create_at"], outcome=m["outcome"],
        phase=m["phase"], approval_status=m["approval_status"],
        resume_attempts=m["resume_attempts"], msg_root_turns=m["msg_root_turns"],
        artifacts=json.loads(m["artifacts"]), stale_delivery=m["stale_delivery"],
        finished=m["finished"], note=m["note"],
    )


class Store:
    """The job tables of one database."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine

    # -- jobs and versions ---------------------------------------------------------------
    def submit(self, job: dict[str, Any], workflow_id: str) -> tuple[str, bool]:
        """Record a submitted job version. Returns (status, start): status is 'new', 'known' or
        'cancelled'; start says whether the version's workflow should be started."""
        job_id, version = str(job["job_id"]), str(job["task_version"])
        tools = json.dumps(list(job.get("allowed_tools") or []))
        with self.engine.begin() as c:
            c.execute(pg_insert(jobs)
                      .values(job_id=job_id, tenant=job.get("tenant"), workload=job.get("workload"))
                      .on_conflict_do_nothing())
            jrow = c.execute(sa.select(jobs).where(jobs.c.job_id == job_id).with_for_update()).first()
            assert jrow is not None
            existing = c.execute(sa.select(versions.c.seq).where(
                versions.c.job_id == job_id, versions.c.version == version)).first()
            if existing is not None:
                # Same version again: only its allowed tools (the job's policy) may change.
                c.execute(versions.update().where(versions.c.job_id == job_id,
                                                  versions.c.version == version)
                          .values(allowed_tools=tools))
                if jrow.cancelled:
                    return "cancelled", False
                return "known", True
            if jrow.cancelled:
                # A cancelled job stays cancelled: the new version is recorded, never worked.
                seq = jrow.newest_seq + 1
                c.execute(versions.insert().values(
                    job_id=job_id, version=version, seq=seq, job_json=json.dumps(job),
                    allowed_tools=tools, workflow_id=workflow_id, outcome="cancelled",
                    finished=True, note="submitted after the job was cancelled"))
                c.execute(jobs.update().where(jobs.c.job_id == job_id)
                          .values(newest_version=version, newest_seq=seq))
                return "cancelled", False
            seq = jrow.newest_seq + 1
            c.execute(versions.insert().values(
                job_id=job_id, version=version, seq=seq, job_json=json.dumps(job),
                allowed_tools=tools, workflow_id=workflow_id))
            c.execute(jobs.update().where(jobs.c.job_id == job_id)
                      .values(newest_version=version, newest_seq=seq,
                              tenant=job.get("tenant"), workload=job.get("workload")))
            return "new", True

    def cancel(self, job_id: str) -> None:
        """Store the user's cancellation (before it is acknowledged)."""
        with self.engine.begin() as c:
            c.execute(
                pg_insert(jobs).values(job_id=job_id).on_conflict_do_nothing())
            c.execute(jobs.update().where(jobs.c.job_id == job_id, jobs.c.cancelled == sa.false())
                      .values(cancelled=True, cancelled_at=time.time()))

    def job(self, job_id: str) -> Any:
        with self.engine.connect() as c:
            return c.execute(sa.select(jobs).where(jobs.c.job_id == job_id)).first()

    def is_cancelled(self, job_id: str) -> bool:
        row = self.job(job_id)
        return bool(row is not None and row.cancelled)

    def version(self, job_id: str, version: str) -> VersionRow | None:
        with self.engine.connect() as c:
            row = c.execute(sa.select(versions).where(
                versions.c.job_id == job_id, versions.c.version == version)).first()
        return _version(row) if row is not None else None

    def newest(self, job_id: str) -> VersionRow | None:
        row = self.job(job_id)
        if row is None or row.newest_version is None:
            return None
        return self.version(job_id, row.newest_version)

    def is_newest(self, job_id: str, version: str) -> bool:
        row = self.job(job_id)
        return bool(row is not None and row.newest_version == version)

    def update_version(self, job_id: str, version: str, **values: Any) -> None:
        for key in ("artifacts",):
            if key in values and not isinstance(values[key], str):
                values[key] = json.dumps(values[key])
        with self.engine.begin() as c:
            c.execute(versions.update().where(versions.c.job_id == job_id,
                                              versions.c.version == version).values(**values))

    def unfinished_versions(self) -> list[VersionRow]:
        with self.engine.connect() as c:
            rows = c.execute(sa.select(versions).where(versions.c.finished == sa.false())).all()
        return [_version(r) for r in rows]

    # -- answered calls ------------------------------------------------------------------
    def answer_state(self, session_id: str, call_id: str) -> tuple[str, int] | None:
        with self.engine.connect() as c:
            row = c.execute(sa.select(answered.c.state, answered.c.attempt).where(
                answered.c.session_id == session_id, answered.c.call_id == call_id)).first()
        return (row.state, row.attempt) if row is not None else None

    def answered_calls(self, session_id: str) -> dict[str, tuple[str, float]]:
        with self.engine.connect() as c:
            rows = c.execute(sa.select(answered.c.call_id, answered.c.state, answered.c.answered_at)
                             .where(answered.c.session_id == session_id)).all()
        return {r.call_id: (r.state, r.answered_at) for r in rows}

    def set_answer(self, session_id: str, call_id: str, job_id: str, state: str,
                   attempt: int) -> None:
        stmt = pg_insert(answered).values(
            session_id=session_id, call_id=call_id, job_id=job_id, state=state, attempt=attempt,
            answered_at=time.time())
        stmt = stmt.on_conflict_do_update(
            index_elements=[answered.c.session_id, answered.c.call_id],
            set_={"state": state, "attempt": attempt, "answered_at": time.time()})
        with self.engine.begin() as c:
            c.execute(stmt)

    # -- refused credentials -------------------------------------------------------------
    def refuse(self, service: str, detail: str) -> None:
        with self.engine.begin() as c:
            c.execute(pg_insert(refusals)
                      .values(service=service, at=time.time(), detail=detail[:500])
                      .on_conflict_do_nothing())

    def refused_services(self) -> set[str]:
        with self.engine.connect() as c:
            return {r.service for r in c.execute(sa.select(refusals.c.service)).all()}

    # -- webhooks ------------------------------------------------------------------------
    def first_delivery(self, webhook_id: str) -> bool:
        """Record a verified webhook id; False when it was seen before (a duplicate)."""
        with self.engine.begin() as c:
            res = c.execute(pg_insert(webhooks)
                            .values(webhook_id=webhook_id, received_at=time.time())
                            .on_conflict_do_nothing())
            return bool(res.rowcount)
