"""The reference control plane's own database: the job table and the side-effect ledger.

SQLite by default, through the standard library's ``sqlite3``: one connection, each statement
prepared once (the connection keeps them), indexes for every lookup the plane makes. Any other
database URL (PostgreSQL included) goes through SQLAlchemy, with the same SQL. Every write is its
own committed transaction, made *before* the I/O it describes: a crash between two statements loses
nothing the next instance needs.

The plane reads its jobs and a job's ledger many times a step (before every write, to see whether it
was cancelled meanwhile); on SQLite those reads are answered from the rows last read as long as
nothing was committed since, by this store or by any other connection (``PRAGMA data_version``), so
a read is never stale. Every read returns new objects, as a fresh query would.

What it deliberately does not do: decide anything (the plane does), or keep state that is not in
the database (a restarted instance sees exactly what the crashed one committed).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["JobRow", "OpRow", "Store"]

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS dh_jobs (
        job_id VARCHAR(200) NOT NULL,
        task_version VARCHAR(64) NOT NULL,
        spec TEXT NOT NULL,
        session_id VARCHAR(200),
        phase VARCHAR(64) NOT NULL,
        checkpoint TEXT NOT NULL,
        outcome VARCHAR(32) NOT NULL,
        resume_attempts INTEGER NOT NULL,
        note TEXT,
        PRIMARY KEY (job_id, task_version))""",
    """CREATE TABLE IF NOT EXISTS dh_operations (
        operation_key VARCHAR(400) NOT NULL PRIMARY KEY,
        job_id VARCHAR(200) NOT NULL,
        task_version VARCHAR(64) NOT NULL,
        kind VARCHAR(64) NOT NULL,
        request_hash VARCHAR(64) NOT NULL,
        state VARCHAR(16) NOT NULL,
        remote_id VARCHAR(200),
        receipt TEXT,
        attempts INTEGER NOT NULL,
        seq INTEGER NOT NULL)""",
    # tool results sent to the sessions API: a side effect too
    """CREATE TABLE IF NOT EXISTS dh_answers (
        session_id VARCHAR(200) NOT NULL,
        call_id VARCHAR(200) NOT NULL,
        operation_key VARCHAR(400),
        state VARCHAR(16) NOT NULL,
        PRIMARY KEY (session_id, call_id))""",
    # webhook ids already handled: deliveries are at-least-once
    """CREATE TABLE IF NOT EXISTS dh_webhooks (
        webhook_id VARCHAR(200) NOT NULL PRIMARY KEY,
        type VARCHAR(100) NOT NULL)""",
    # who works a job: one worker at a time, with a fencing token that goes up at every takeover
    """CREATE TABLE IF NOT EXISTS dh_leases (
        job_id VARCHAR(200) NOT NULL PRIMARY KEY,
        owner VARCHAR(200) NOT NULL,
        token INTEGER NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS dh_operations_by_job ON dh_operations (job_id, task_version, seq)",
    "CREATE INDEX IF NOT EXISTS dh_answers_by_state ON dh_answers (session_id, state, call_id)",
)

_JOB_COLUMNS = ("job_id", "task_version", "spec", "session_id", "phase", "checkpoint", "outcome", "resume_attempts", "note")
_OP_COLUMNS = "operation_key, kind, request_hash, state, remote_id, receipt, attempts"
_JOBS = f"SELECT {', '.join(_JOB_COLUMNS)} FROM dh_jobs ORDER BY job_id, task_version"
_JOB_EXISTS = "SELECT job_id FROM dh_jobs WHERE job_id = :job_id AND task_version = :task_version"
_ADD_JOB = ("INSERT INTO dh_jobs (job_id, task_version, spec, session_id, phase, checkpoint, outcome, resume_attempts) "
            "VALUES (:job_id, :task_version, :spec, NULL, 'accepted', :checkpoint, 'running', 0)")
_OP = f"SELECT {_OP_COLUMNS} FROM dh_operations WHERE operation_key = :key"
_OPS = f"SELECT {_OP_COLUMNS} FROM dh_operations WHERE job_id = :job_id AND task_version = :task_version ORDER BY seq"
_COUNT_OPS = "SELECT COUNT(*) FROM dh_operations"
_PREPARE = ("INSERT INTO dh_operations (operation_key, job_id, task_version, kind, request_hash, state, attempts, seq) "
            "VALUES (:key, :job_id, :task_version, :kind, :request_hash, 'PREPARED', 0, :seq)")
_WEBHOOK_SEEN = "SELECT webhook_id FROM dh_webhooks WHERE webhook_id = :webhook_id"
_ADD_WEBHOOK = "INSERT INTO dh_webhooks (webhook_id, type) VALUES (:webhook_id, :type)"
_ANSWER = "SELECT state FROM dh_answers WHERE session_id = :session_id AND call_id = :call_id"
_ANSWERS_IN_STATE = "SELECT call_id FROM dh_answers WHERE session_id = :session_id AND state = :state ORDER BY call_id"
_SET_ANSWER = "UPDATE dh_answers SET state = :state WHERE session_id = :session_id AND call_id = :call_id"
_ANSWERS_FOR_KEY = "SELECT state FROM dh_answers WHERE session_id = :session_id AND operation_key = :operation_key"
_LEASE = "SELECT owner, token, expires_at FROM dh_leases WHERE job_id = :job_id"
_ADD_LEASE = "INSERT INTO dh_leases (job_id, owner, token, expires_at) VALUES (:job_id, :owner, :token, :expires_at)"
_SET_LEASE = "UPDATE dh_leases SET owner = :owner, token = :token, expires_at = :expires_at WHERE job_id = :job_id"
_ADD_ANSWER = ("INSERT INTO dh_answers (session_id, call_id, operation_key, state) "
               "VALUES (:session_id, :call_id, :operation_key, :state)")

Rows = list[tuple[Any, ...]]
Execute = Callable[[str, Mapping[str, Any]], Rows]


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


class _Database(Protocol):
    def read(self, sql: str, params: Mapping[str, Any]) -> Rows: ...
    def transaction(self) -> Any: ...  # a context manager giving an ``Execute``
    def version(self) -> int | None: ...  # changes when another connection commits; None: unknown
    def close(self) -> None: ...


class _SQLite:
    """One ``sqlite3`` connection in autocommit mode; a write transaction takes the lock first
    (``BEGIN IMMEDIATE``), so a read inside it cannot go stale before its write. WAL with
    synchronous=NORMAL: a commit survives the death of the process (the threat model here: crashes
    and SIGKILL) without an fsync per commit; only a power cut may lose the last ones."""

    def __init__(self, path: str) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=5.0)
        self._db.execute("PRAGMA journal_mode=WAL").fetchall()
        self._db.execute("PRAGMA synchronous=NORMAL")

    def read(self, sql: str, params: Mapping[str, Any]) -> Rows:
        return self._db.execute(sql, params).fetchall()

    @contextmanager
    def transaction(self) -> Iterator[Execute]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self.read
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def version(self) -> int | None:
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    def close(self) -> None:
        self._db.close()


class _SQLAlchemy:
    """Any database SQLAlchemy reaches (PostgreSQL by URL), with the same SQL; nothing is cached."""

    def __init__(self, url: str) -> None:
        from sqlalchemy import create_engine, event, text

        self._engine = create_engine(url)
        if self._engine.dialect.name == "sqlite":
            event.listen(self._engine, "connect", _sqlite_wal)
        self._texts: dict[str, Any] = {}
        self._text = text

    def _statement(self, sql: str) -> Any:
        statement = self._texts.get(sql)
        if statement is None:
            statement = self._texts[sql] = self._text(sql)
        return statement

    def read(self, sql: str, params: Mapping[str, Any]) -> Rows:
        with self._engine.connect() as c:
            return [tuple(r) for r in c.execute(self._statement(sql), dict(params))]

    @contextmanager
    def transaction(self) -> Iterator[Execute]:
        with self._engine.begin() as c:
            def execute(sql: str, params: Mapping[str, Any]) -> Rows:
                result = c.execute(self._statement(sql), dict(params))
                return [tuple(r) for r in result] if result.returns_rows else []
            yield execute

    def version(self) -> int | None:
        return None

    def close(self) -> None:
        self._engine.dispose()


def _sqlite_wal(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _open(url: str) -> _Database:
    """``sqlite:///PATH`` (and ``sqlite://`` in memory) by ``sqlite3``; any other URL by SQLAlchemy."""
    if url == "sqlite://":
        return _SQLite(":memory:")
    if url.startswith("sqlite:///") and "?" not in url:
        return _SQLite(url[len("sqlite:///"):])
    return _SQLAlchemy(url)


class Store:
    def __init__(self, url: str) -> None:
        self._db = _open(url)
        self._lock = threading.RLock()  # a process candidate's control calls come on other threads, one at a time
        self._version: int | None = None
        self._jobs: Rows | None = None  # every job row as last read, while nothing was committed since
        self._ops: dict[tuple[str, str], Rows] = {}
        with self._db.transaction() as execute:
            for statement in _SCHEMA:
                execute(statement, {})

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- reading through what was read last ------------------------------------------------------
    def _unchanged(self) -> bool:
        """Whether the rows read last are still the database's (False: forget them)."""
        version = self._db.version()
        if version is None or version != self._version:
            self._version = version
            self._forget()
            return False
        return True

    def _forget(self) -> None:
        self._jobs = None
        self._ops.clear()

    @contextmanager
    def _write(self) -> Iterator[Execute]:
        with self._lock:
            self._forget()
            with self._db.transaction() as execute:
                yield execute

    # -- jobs ----------------------------------------------------------------------------
    def add_job(self, job: Mapping[str, Any], checkpoint: Mapping[str, Any]) -> bool:
        """Insert the job unless (job_id, task_version) is known; returns whether it was new."""
        key = {"job_id": job["job_id"], "task_version": str(job["task_version"])}
        with self._write() as execute:
            if execute(_JOB_EXISTS, key):
                return False
            execute(_ADD_JOB, {**key, "spec": json.dumps(job, sort_keys=True),
                               "checkpoint": json.dumps(checkpoint, sort_keys=True)})
            return True

    def jobs(self, job_id: str | None = None) -> list[JobRow]:
        with self._lock:
            if not self._unchanged() or self._jobs is None:
                self._jobs = self._db.read(_JOBS, {})
            rows = self._jobs
        return [JobRow(r[0], r[1], json.loads(r[2]), r[3], r[4], json.loads(r[5]), r[6], r[7], r[8])
                for r in rows if job_id is None or r[0] == job_id]

    def update_job(self, job: JobRow, **values: Any) -> None:
        for key in ("checkpoint", "spec"):
            if key in values:
                values[key] = json.dumps(values[key], sort_keys=True)
        unknown = sorted(set(values) - set(_JOB_COLUMNS[2:]))
        if unknown:
            raise ValueError(f"update_job: {unknown!r} are not columns of a job; use {_JOB_COLUMNS[2:]!r}")
        if not values:
            return
        sql = _update_job_sql(tuple(sorted(values)))
        with self._write() as execute:
            execute(sql, {**values, "_job_id": job.job_id, "_task_version": job.task_version})

    # -- the ledger ----------------------------------------------------------------------
    def op(self, key: str) -> OpRow | None:
        with self._lock:
            rows = self._db.read(_OP, {"key": key})
        return _op(rows[0]) if rows else None

    def ops(self, job_id: str, task_version: str) -> list[OpRow]:
        with self._lock:
            if not self._unchanged() or (job_id, task_version) not in self._ops:
                self._ops[(job_id, task_version)] = self._db.read(_OPS, {"job_id": job_id, "task_version": task_version})
            rows = self._ops[(job_id, task_version)]
        return [_op(r) for r in rows]

    def prepare(self, key: str, job: JobRow, kind: str, request_hash: str) -> OpRow:
        with self._write() as execute:
            seq = int(execute(_COUNT_OPS, {})[0][0])
            execute(_PREPARE, {"key": key, "job_id": job.job_id, "task_version": job.task_version, "kind": kind,
                               "request_hash": request_hash, "seq": seq})
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
        sql = _set_op_sql(tuple(sorted(values)), attempt)
        with self._write() as execute:
            execute(sql, {**values, "_key": key})

    # -- webhooks ----------------------------------------------------------------------------
    def first_sight_of_webhook(self, webhook_id: str, type_: str) -> bool:
        """Record the webhook id; False when it was seen before (a duplicate or a replay)."""
        with self._write() as execute:
            if execute(_WEBHOOK_SEEN, {"webhook_id": webhook_id}):
                return False
            execute(_ADD_WEBHOOK, {"webhook_id": webhook_id, "type": type_})
            return True

    def job_of_session(self, session_id: str) -> JobRow | None:
        return next((j for j in self.jobs() if j.session_id == session_id), None)

    # -- leases ------------------------------------------------------------------------------
    def lease(self, job_id: str) -> tuple[str, int, float] | None:
        """(owner, token, expires_at) of the job's lease, or None if it never had one."""
        with self._lock:
            rows = self._db.read(_LEASE, {"job_id": job_id})
        return None if not rows else (str(rows[0][0]), int(rows[0][1]), float(rows[0][2]))

    def take_lease(self, job_id: str, expected_token: int | None, owner: str, token: int, expires_at: float) -> bool:
        """Take the lease if its token is still ``expected_token`` (None: it had none); whether it was."""
        with self._write() as execute:
            rows = execute(_LEASE, {"job_id": job_id})
            current = int(rows[0][1]) if rows else None
            if current != expected_token:
                return False
            execute(_SET_LEASE if rows else _ADD_LEASE,
                    {"job_id": job_id, "owner": owner, "token": token, "expires_at": expires_at})
            return True

    def renew_lease(self, job_id: str, owner: str, token: int, expires_at: float) -> bool:
        """Extend the lease if it is still ``owner``'s with ``token``; whether it was."""
        with self._write() as execute:
            rows = execute(_LEASE, {"job_id": job_id})
            if not rows or str(rows[0][0]) != owner or int(rows[0][1]) != token:
                return False
            execute(_SET_LEASE, {"job_id": job_id, "owner": owner, "token": token, "expires_at": expires_at})
            return True

    # -- answers to the agent --------------------------------------------------------------
    def answer_state(self, session_id: str, call_id: str) -> str | None:
        with self._lock:
            rows = self._db.read(_ANSWER, {"session_id": session_id, "call_id": call_id})
        return None if not rows else str(rows[0][0])

    def answers_in_state(self, session_id: str, state: str) -> list[str]:
        with self._lock:
            rows = self._db.read(_ANSWERS_IN_STATE, {"session_id": session_id, "state": state})
        return [str(r[0]) for r in rows]

    def answer_confirmed_for(self, session_id: str, operation_key: str) -> bool:
        """Whether an answer carrying the outcome of ``operation_key`` reached the agent."""
        with self._lock:
            rows = self._db.read(_ANSWERS_FOR_KEY, {"session_id": session_id, "operation_key": operation_key})
        return any(str(r[0]) == "CONFIRMED" for r in rows)

    def set_answer(self, session_id: str, call_id: str, operation_key: str | None, state: str) -> None:
        key = {"session_id": session_id, "call_id": call_id}
        with self._write() as execute:
            if execute(_ANSWER, key):
                execute(_SET_ANSWER, {**key, "state": state})
            else:
                execute(_ADD_ANSWER, {**key, "operation_key": operation_key, "state": state})


def _op(r: Sequence[Any]) -> OpRow:
    return OpRow(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]) if r[5] else None, r[6])


_SQL: dict[tuple[str, tuple[str, ...], bool], str] = {}  # statements built once per set of columns


def _update_job_sql(columns: tuple[str, ...]) -> str:
    key = ("job", columns, False)
    if key not in _SQL:
        sets = ", ".join(f"{c} = :{c}" for c in columns)
        _SQL[key] = f"UPDATE dh_jobs SET {sets} WHERE job_id = :_job_id AND task_version = :_task_version"
    return _SQL[key]


def _set_op_sql(columns: tuple[str, ...], attempt: bool) -> str:
    key = ("op", columns, attempt)
    if key not in _SQL:
        sets = [f"{c} = :{c}" for c in columns] + (["attempts = attempts + 1"] if attempt else [])
        _SQL[key] = f"UPDATE dh_operations SET {', '.join(sets)} WHERE operation_key = :_key"
    return _SQL[key]
