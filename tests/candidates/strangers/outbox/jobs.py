"""Jobs and their task versions: what was submitted, what the user cancelled.

A job id has one newest task version (``jobs.current_version``); a submit of a newer version
supersedes the older ones, a submit of the same version again only replaces its allowed tools
(the job's policy), and a cancellation is recorded for the job id — all versions, for good: a later
submit never reopens it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from .store import JOBS, VERSIONS, Store, dumps


@dataclass
class Job:
    """One task version of a job, as stored."""

    job_id: str
    version: str
    current: bool
    cancelled: bool
    row: dict[str, Any]

    @property
    def spec(self) -> dict[str, Any]:
        return json.loads(self.row["spec"])

    @property
    def workload(self) -> str:
        return str(self.row["workload"])

    @property
    def allowed_tools(self) -> list[str]:
        return list(json.loads(self.row["allowed_tools"]))

    @property
    def inputs(self) -> dict[str, Any]:
        return dict(self.spec.get("input") or {})

    @property
    def budget(self) -> dict[str, Any]:
        return dict(self.spec.get("budget") or {})

    @property
    def session_id(self) -> str | None:
        return self.row.get("session_id")


class Jobs:
    """Submissions, cancellations and per-version fields."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def submit(self, job: dict[str, Any]) -> dict[str, Any]:
        job_id = str(job["job_id"])
        version = str(job.get("task_version", "1"))
        tools = dumps(list(job.get("allowed_tools") or []))
        with self.store.tx() as c:
            header = c.execute(select(JOBS).where(JOBS.c.job_id == job_id)).mappings().first()
            existing = c.execute(select(VERSIONS.c.version).where(VERSIONS.c.job_id == job_id)
                                 .where(VERSIONS.c.version == version)).first()
            if existing is not None:
                c.execute(VERSIONS.update().where(VERSIONS.c.job_id == job_id)
                          .where(VERSIONS.c.version == version).values(allowed_tools=tools))
                return {"job_id": job_id, "task_version": version, "accepted": True, "policy": "updated"}
            seq = c.execute(select(func.count()).select_from(VERSIONS)
                            .where(VERSIONS.c.job_id == job_id)).scalar_one() + 1
            c.execute(VERSIONS.insert().values(
                job_id=job_id, version=version, seq=seq, workload=str(job.get("workload", "article")),
                spec=dumps(job), allowed_tools=tools, session_state="NONE"))
            if header is None:
                c.execute(JOBS.insert().values(job_id=job_id, current_version=version, cancelled=0))
            else:
                c.execute(JOBS.update().where(JOBS.c.job_id == job_id)
                          .values(current_version=version))
        return {"job_id": job_id, "task_version": version, "accepted": True}

    def cancel(self, job_id: str, now: float) -> dict[str, Any]:
        """Record the cancellation (committed before it is acknowledged)."""
        try:
            with self.store.tx() as c:
                done = c.execute(JOBS.update().where(JOBS.c.job_id == job_id)
                                 .where(JOBS.c.cancelled == 0)
                                 .values(cancelled=1, cancelled_at=now))
                if done.rowcount == 0:
                    known = c.execute(select(JOBS.c.job_id).where(JOBS.c.job_id == job_id)).first()
                    if known is None:
                        c.execute(JOBS.insert().values(job_id=job_id, current_version="",
                                                       cancelled=1, cancelled_at=now))
        except IntegrityError:
            return self.cancel(job_id, now)
        return {"job_id": job_id, "cancelled": True}

    def job_ids(self) -> list[str]:
        with self.store.tx() as c:
            return [str(r[0]) for r in c.execute(select(JOBS.c.job_id).order_by(JOBS.c.job_id))]

    def is_cancelled(self, job_id: str) -> bool:
        with self.store.tx() as c:
            row = c.execute(select(JOBS.c.cancelled).where(JOBS.c.job_id == job_id)).first()
        return bool(row and row[0])

    def current_version(self, job_id: str) -> str | None:
        with self.store.tx() as c:
            row = c.execute(select(JOBS.c.current_version).where(JOBS.c.job_id == job_id)).first()
        return str(row[0]) if row and row[0] else None

    def versions(self, job_id: str) -> list[Job]:
        with self.store.tx() as c:
            header = c.execute(select(JOBS).where(JOBS.c.job_id == job_id)).mappings().first()
            rows = c.execute(select(VERSIONS).where(VERSIONS.c.job_id == job_id)
                             .order_by(VERSIONS.c.seq)).mappings().all()
        if header is None:
            return []
        return [Job(job_id, str(r["version"]), str(r["version"]) == header["current_version"],
                    bool(header["cancelled"]), dict(r)) for r in rows]

    def load(self, job_id: str, version: str | None = None) -> Job | None:
        """A version of the job (the newest by default), or None if unknown."""
        for job in self.versions(job_id):
            if (version is None and job.current) or job.version == version:
                return job
        return None

    def update(self, job: Job, **values: Any) -> None:
        with self.store.tx() as c:
            c.execute(VERSIONS.update().where(VERSIONS.c.job_id == job.job_id)
                      .where(VERSIONS.c.version == job.version).values(**values))
        job.row.update(values)

    def set_if_unset(self, job: Job, column: str, value: Any) -> None:
        """Set a write-once field (a failure reason) unless it is already set."""
        with self.store.tx() as c:
            c.execute(VERSIONS.update().where(VERSIONS.c.job_id == job.job_id)
                      .where(VERSIONS.c.version == job.version)
                      .where(getattr(VERSIONS.c, column).is_(None)).values(**{column: value}))
        if job.row.get(column) is None:
            job.row[column] = value
