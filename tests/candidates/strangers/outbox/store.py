"""The control plane's own database: schema and short transactions.

Everything the control plane knows lives here, and only here: a new instance (after a crash, or a
second worker) continues from these rows alone. Tables:

- ``jobs``: one row per job id (its newest task version, whether the user cancelled it);
- ``versions``: one row per (job, task version): the job spec, the session, the job's flags;
- ``ops``: the outbox / side-effect ledger, one row per business action (operation key);
- ``results``: every tool result and message sent to the agent, with its idempotency key;
- ``leases``: who works a job, until when, and the fencing token;
- ``flags``: revoked credentials and other facts of the whole control plane;
- ``webhooks``: webhook ids already handled.

Every access is a short transaction (``with store.tx() as c:``). No transaction is ever held
across an HTTP request: a cancellation or a webhook may arrive while a request is in flight, and
it writes here too.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any, Iterator

from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    select,
)
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.pool import NullPool

META = MetaData()

JOBS = Table(
    "ob_jobs", META,
    Column("job_id", String(200), primary_key=True),
    Column("current_version", String(64), nullable=False),
    Column("cancelled", Integer, nullable=False, default=0),
    Column("cancelled_at", Float),
)

VERSIONS = Table(
    "ob_versions", META,
    Column("job_id", String(200), primary_key=True),
    Column("version", String(64), primary_key=True),
    Column("seq", Integer, nullable=False),
    Column("workload", String(32), nullable=False),
    Column("spec", Text, nullable=False),
    Column("allowed_tools", Text, nullable=False),
    Column("session_id", String(200)),
    Column("session_state", String(16), nullable=False, default="NONE"),
    Column("session_sent_at", Float),
    Column("failed_reason", Text),
    Column("needs_human_reason", Text),
    Column("verified", Integer, nullable=False, default=0),
    Column("resume_attempts", Integer, nullable=False, default=0),
    Column("resume_turns", Integer, nullable=False, default=-1),
    Column("tool_calls", Integer, nullable=False, default=0),
    Column("turn_cancel_sent", Integer, nullable=False, default=0),
    Column("delivered", Text),
)

OPS = Table(
    "ob_ops", META,
    Column("op_key", String(300), primary_key=True),
    Column("job_id", String(200), nullable=False, index=True),
    Column("version", String(64), nullable=False),
    Column("role", String(64), nullable=False),
    Column("kind", String(64), nullable=False),
    Column("is_write", Integer, nullable=False),
    Column("state", String(16), nullable=False),
    Column("attempt", Integer, nullable=False, default=0),
    Column("request_hash", String(64), nullable=False),
    Column("request", Text, nullable=False),
    Column("remote_id", String(64)),
    Column("receipt", Text),
    Column("error", Text),
    Column("definite", Integer, nullable=False, default=0),
    Column("sent_at", Float),
    Column("seq", Integer, nullable=False),
)

RESULTS = Table(
    "ob_results", META,
    Column("result_key", String(300), primary_key=True),
    Column("job_id", String(200), nullable=False, index=True),
    Column("version", String(64), nullable=False),
    Column("session_id", String(200), nullable=False),
    Column("call_id", String(200)),
    Column("kind", String(32), nullable=False),
    Column("idem_key", String(300), nullable=False),
    Column("body", Text, nullable=False),
    Column("state", String(16), nullable=False),
    Column("success", Integer),
    Column("sent_at", Float),
)

LEASES = Table(
    "ob_leases", META,
    Column("job_id", String(200), primary_key=True),
    Column("holder", String(200), nullable=False),
    Column("worker_id", String(200), nullable=False),
    Column("expires_at", Float, nullable=False),
    Column("token", Integer, nullable=False),
)

FLAGS = Table(
    "ob_flags", META,
    Column("name", String(200), primary_key=True),
    Column("value", Text, nullable=False),
)

WEBHOOKS = Table(
    "ob_webhooks", META,
    Column("webhook_id", String(300), primary_key=True),
    Column("received_at", Float, nullable=False),
)


def engine_for(url: str) -> Engine:
    """An engine for the env's database URL (SQLite file, or PostgreSQL through psycopg 3)."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.drivername.startswith("sqlite"):
        return create_engine(parsed, poolclass=NullPool, connect_args={"timeout": 30})
    return create_engine(parsed, pool_pre_ping=True)


def sqlite_path(url: str) -> str | None:
    """The file of a SQLite database URL, or None (another database, or in memory)."""
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite"):
        return None
    db = parsed.database
    return db if db and db != ":memory:" else None


class Store:
    """The database: schema creation and transactions."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = engine_for(url)
        try:
            META.create_all(self.engine)
        except Exception:  # another worker created the tables at the same instant
            META.create_all(self.engine)

    @contextmanager
    def tx(self) -> Iterator[Connection]:
        with self.engine.begin() as conn:
            yield conn

    # --- flags -------------------------------------------------------------------------------
    def flag(self, name: str) -> str | None:
        with self.tx() as c:
            row = c.execute(select(FLAGS.c.value).where(FLAGS.c.name == name)).first()
        return None if row is None else str(row[0])

    def set_flag(self, name: str, value: str) -> None:
        with self.tx() as c:
            done = c.execute(FLAGS.update().where(FLAGS.c.name == name).values(value=value))
            if done.rowcount == 0:
                try:
                    c.execute(FLAGS.insert().values(name=name, value=value))
                except IntegrityError:
                    pass

    def bump_counter(self, name: str) -> int:
        """Increase a counter kept in ``flags`` and return its new value."""
        with self.tx() as c:
            row = c.execute(select(FLAGS.c.value).where(FLAGS.c.name == name)).first()
            value = (int(row[0]) if row else 0) + 1
            if row:
                c.execute(FLAGS.update().where(FLAGS.c.name == name).values(value=str(value)))
            else:
                c.execute(FLAGS.insert().values(name=name, value=str(value)))
        return value

    # --- webhooks ------------------------------------------------------------------------------
    def remember_webhook(self, webhook_id: str, now: float) -> bool:
        """Record a webhook id; False when it was already handled."""
        try:
            with self.tx() as c:
                c.execute(WEBHOOKS.insert().values(webhook_id=webhook_id, received_at=now))
            return True
        except IntegrityError:
            return False


def dumps(value: Any) -> str:
    """Canonical JSON (sorted keys): what request hashes and stored bodies are made of."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
