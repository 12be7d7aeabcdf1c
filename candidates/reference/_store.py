"""The reference control plane's own database: the job table and the side-effect ledger.

SQLAlchemy Core on SQLite by default (any SQLAlchemy URL works, PostgreSQL included). Every
write is its own committed transaction, made *before* the I/O it describes: a crash between two
statements loses nothing the next instance needs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Column, Integer, MetaData, String, Table, Text, create_engine, event, insert, select, update,
)
from sqlalchemy.engine import Engine

__all__ = ["JobRow", "OpRow", "Store"]

metadata = MetaData()

jobs = Table(
    "dh_jobs", metadata,
    Column("job_id", String(200), primary_key=True),
    Column("task_version", String(64), primary_key=True),
    Column("spec", Text, nullable=False),  # the Job as submitted (JSON)
    Column("session_id", String(200)),
    Column("phase", String(64), nullable=False),
    Column("checkpoint", Text, nullable=False),
    Column("outcome", String(32), nullable=False),
    Column("resume_attempts", Integer, nullable=False, default=0),
    Column("note", Text),
)

operations = Table(
    "dh_operations", metadata,
    Column("operation_key", String(400), primary_key=True),
    Column("job_id", String(200), nullable=False),
    Column("task_version", String(64), nullable=False),
    Column("kind", String(64), nullable=False),
    Column("request_hash", String(64), nullable=False),
    Column("state", String(16), nullable=False),
    Column("remote_id", String(200)),
    Column("receipt", Text),
    Column("attempts", Integer, nullable=False, default=0),
    Column("seq", Integer, nullable=False),
)

answers = Table(  # tool results sent to the sessions API: a side effect too
    "dh_answers", metadata,
    Column("session_id", String(200), primary_key=True),
    Column("call_id", String(200), primary_key=True),
    Column("operation_key", String(400)),
    Column("state", String(16), nullable=False),
)


webhooks = Table(  # webhook ids already handled: deliveries are at-least-once
    "dh_webhooks", metadata,
    Column("webhook_id", String(200), primary_key=True),
    Column("type", String(100), nullable=False),
)


def _sqlite_wal(dbapi_connection: Any, _record: Any) -> None:
    """WAL with synchronous=NORMAL: a commit survives the death of the process (the threat model
    here: crashes and SIGKILL), without an fsync per commit; only a power cut may lose the last ones."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


@dataclass(frozen=True)
class JobRow:
    job_id: str
    task_version: str
    spec: Mapping[str, Any]
    session_id: str | None
    phase: str
    checkpoint: Mapping[str, Any]
    outcome: str
    resume_attempts: int
    note: str | None


@dataclass(frozen=True)
class OpRow:
    operation_key: str
    kind: str
    request_hash: str
    state: str
    remote_id: str | None
    receipt: Mapping[str, Any] | None
    attempts: int


class Store:
    def __init__(self, url: str) -> None:
        self.engine: Engine = create_engine(url)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_wal)
        metadata.create_all(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    # -- jobs ----------------------------------------------------------------------------
    def add_job(self, job: Mapping[str, Any], checkpoint: Mapping[str, Any]) -> bool:
        """Insert the job unless (job_id, task_version) is known; returns whether it was new."""
        with self.engine.begin() as c:
            found = c.execute(select(jobs.c.job_id).where(
                jobs.c.job_id == job["job_id"], jobs.c.task_version == str(job["task_version"]))).first()
            if found:
                return False
            c.execute(insert(jobs).values(
                job_id=job["job_id"], task_version=str(job["task_version"]), spec=json.dumps(job, sort_keys=True),
                session_id=None, phase="accepted", checkpoint=json.dumps(checkpoint, sort_keys=True),
                outcome="running", resume_attempts=0))
            return True

    def jobs(self, job_id: str | None = None) -> list[JobRow]:
        q = select(jobs).order_by(jobs.c.job_id, jobs.c.task_version)
        if job_id is not None:
            q = q.where(jobs.c.job_id == job_id)
        with self.engine.connect() as c:
            return [JobRow(r.job_id, r.task_version, json.loads(r.spec), r.session_id, r.phase,
                           json.loads(r.checkpoint), r.outcome, r.resume_attempts, r.note) for r in c.execute(q)]

    def update_job(self, job: JobRow, **values: Any) -> None:
        for key in ("checkpoint",):
            if key in values:
                values[key] = json.dumps(values[key], sort_keys=True)
        with self.engine.begin() as c:
            c.execute(update(jobs).where(jobs.c.job_id == job.job_id, jobs.c.task_version == job.task_version).values(**values))

    # -- the ledger ----------------------------------------------------------------------
    def op(self, key: str) -> OpRow | None:
        with self.engine.connect() as c:
            r = c.execute(select(operations).where(operations.c.operation_key == key)).first()
        if r is None:
            return None
        return OpRow(r.operation_key, r.kind, r.request_hash, r.state, r.remote_id,
                     json.loads(r.receipt) if r.receipt else None, r.attempts)

    def ops(self, job_id: str, task_version: str) -> list[OpRow]:
        with self.engine.connect() as c:
            rows = c.execute(select(operations).where(operations.c.job_id == job_id, operations.c.task_version == task_version)
                             .order_by(operations.c.seq)).all()
        return [OpRow(r.operation_key, r.kind, r.request_hash, r.state, r.remote_id,
                      json.loads(r.receipt) if r.receipt else None, r.attempts) for r in rows]

    def prepare(self, key: str, job: JobRow, kind: str, request_hash: str) -> OpRow:
        with self.engine.begin() as c:
            seq = len(c.execute(select(operations.c.operation_key)).all())
            c.execute(insert(operations).values(
                operation_key=key, job_id=job.job_id, task_version=job.task_version, kind=kind,
                request_hash=request_hash, state="PREPARED", attempts=0, seq=seq))
        op = self.op(key)
        assert op is not None
        return op

    def set_op(self, key: str, state: str, *, remote_id: str | None = None, receipt: Mapping[str, Any] | None = None,
               attempt: bool = False) -> None:
        values: dict[str, Any] = {"state": state}
        if remote_id is not None:
            values["remote_id"] = remote_id
        if receipt is not None:
            values["receipt"] = json.dumps(receipt, sort_keys=True)
        if attempt:
            values["attempts"] = operations.c.attempts + 1
        with self.engine.begin() as c:
            c.execute(update(operations).where(operations.c.operation_key == key).values(**values))

    # -- webhooks ----------------------------------------------------------------------------
    def first_sight_of_webhook(self, webhook_id: str, type_: str) -> bool:
        """Record the webhook id; False when it was seen before (a duplicate or a replay)."""
        with self.engine.begin() as c:
            if c.execute(select(webhooks.c.webhook_id).where(webhooks.c.webhook_id == webhook_id)).first():
                return False
            c.execute(insert(webhooks).values(webhook_id=webhook_id, type=type_))
            return True

    def job_of_session(self, session_id: str) -> JobRow | None:
        return next((j for j in self.jobs() if j.session_id == session_id), None)

    # -- answers to the agent --------------------------------------------------------------
    def answer_state(self, session_id: str, call_id: str) -> str | None:
        with self.engine.connect() as c:
            r = c.execute(select(answers.c.state).where(answers.c.session_id == session_id, answers.c.call_id == call_id)).first()
        return None if r is None else str(r.state)

    def answers_in_state(self, session_id: str, state: str) -> list[str]:
        with self.engine.connect() as c:
            rows = c.execute(select(answers.c.call_id).where(answers.c.session_id == session_id, answers.c.state == state)
                             .order_by(answers.c.call_id)).all()
        return [str(r.call_id) for r in rows]

    def set_answer(self, session_id: str, call_id: str, operation_key: str | None, state: str) -> None:
        with self.engine.begin() as c:
            found = c.execute(select(answers.c.state).where(answers.c.session_id == session_id, answers.c.call_id == call_id)).first()
            if found:
                c.execute(update(answers).where(answers.c.session_id == session_id, answers.c.call_id == call_id).values(state=state))
            else:
                c.execute(insert(answers).values(session_id=session_id, call_id=call_id, operation_key=operation_key, state=state))
