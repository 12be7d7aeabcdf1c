"""Our own tables, beside LangGraph's checkpoint tables in the run's PostgreSQL database.

LangGraph's checkpoints hold the conversation with the agent (which call is being handled, which
calls were answered, the verdict). What must be durable *before* a request leaves, or must be
shared by every worker and every HTTP thread at once, lives here instead: the jobs and their
versions, the cancellation (stored before it is acknowledged), the session of each version (and
whether a create was sent), revoked credentials and the webhooks already handled. The ledger of
side effects and the leases have modules of their own (`ledger.py`, `leases.py`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, cast

from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

if TYPE_CHECKING:
    from typing import TypeAlias

    from psycopg import Connection
    from psycopg.rows import DictRow

    Pool: TypeAlias = ConnectionPool[Connection[DictRow]]

SCHEMA = """
CREATE TABLE IF NOT EXISTS lgcp_jobs (
    job_id text PRIMARY KEY,
    newest_version text NOT NULL,
    workload text NOT NULL,
    cancelled_at double precision
);
CREATE TABLE IF NOT EXISTS lgcp_versions (
    job_id text NOT NULL,
    version text NOT NULL,
    seq integer NOT NULL,
    job jsonb NOT NULL,
    allowed_tools jsonb NOT NULL,
    PRIMARY KEY (job_id, version)
);
CREATE TABLE IF NOT EXISTS lgcp_sessions (
    job_id text NOT NULL,
    version text NOT NULL,
    session_id text,
    create_sent_at double precision,
    create_attempts integer NOT NULL DEFAULT 0,
    PRIMARY KEY (job_id, version)
);
CREATE TABLE IF NOT EXISTS lgcp_revoked (
    service text PRIMARY KEY,
    at double precision,
    detail text
);
CREATE TABLE IF NOT EXISTS lgcp_webhooks (
    webhook_id text PRIMARY KEY,
    type text,
    session_id text
);
CREATE TABLE IF NOT EXISTS lgcp_leases (
    job_id text PRIMARY KEY,
    owner text NOT NULL,
    worker_id text NOT NULL,
    token bigint NOT NULL,
    expires_at double precision NOT NULL
);
CREATE TABLE IF NOT EXISTS lgcp_operations (
    operation_key text PRIMARY KEY,
    job_id text NOT NULL,
    version text NOT NULL,
    role text NOT NULL,
    kind text NOT NULL,
    state text NOT NULL,
    remote_id text,
    request_hash text,
    result jsonb,
    request jsonb,
    error text,
    definite boolean NOT NULL DEFAULT false,
    attempts integer NOT NULL DEFAULT 0,
    seq bigserial
);
CREATE TABLE IF NOT EXISTS lgcp_replies (
    job_id text NOT NULL,
    version text NOT NULL,
    call_id text NOT NULL,
    event jsonb NOT NULL,
    PRIMARY KEY (job_id, version, call_id)
);
"""

SETUP_LOCK = 7_342_001  # advisory lock id: two workers set the schema up one after the other


def open_pool(url: str) -> "Pool":
    """One pool for our tables and LangGraph's `PostgresSaver` (it wants these connection kwargs)."""
    return cast("Pool", ConnectionPool(
        url,
        min_size=2,
        max_size=10,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        open=True,
    ))


class Store:
    """Jobs, versions, cancellations, sessions, revocations and webhooks."""

    def __init__(self, pool: "Pool") -> None:
        self.pool = pool

    def setup(self, checkpointer_setup: Any) -> None:
        with self.pool.connection() as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (SETUP_LOCK,))
            try:
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                checkpointer_setup()
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))

    # -- jobs ---------------------------------------------------------------------------------

    def submit(self, job: dict[str, Any]) -> dict[str, Any]:
        """Store a job version; idempotent on (job_id, task_version). A new version supersedes."""
        job_id, version = str(job["job_id"]), str(job["task_version"])
        tools = json.dumps(list(job.get("allowed_tools") or []))
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(
                "INSERT INTO lgcp_jobs (job_id, newest_version, workload) VALUES (%s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                (job_id, version, str(job.get("workload", "article"))),
            )
            row = conn.execute(
                "SELECT newest_version, cancelled_at FROM lgcp_jobs WHERE job_id = %s FOR UPDATE",
                (job_id,),
            ).fetchone()
            known = conn.execute(
                "SELECT seq FROM lgcp_versions WHERE job_id = %s AND version = %s",
                (job_id, version),
            ).fetchone()
            if known:  # the same version again: only its policy (allowed tools) changes
                conn.execute(
                    "UPDATE lgcp_versions SET allowed_tools = %s::jsonb WHERE job_id = %s AND version = %s",
                    (tools, job_id, version),
                )
            else:
                last = conn.execute(
                    "SELECT coalesce(max(seq), 0) + 1 AS n FROM lgcp_versions WHERE job_id = %s", (job_id,)
                ).fetchone()
                seq = int(last["n"]) if last else 1
                conn.execute(
                    "INSERT INTO lgcp_versions (job_id, version, seq, job, allowed_tools)"
                    " VALUES (%s, %s, %s, %s::jsonb, %s::jsonb)",
                    (job_id, version, seq, json.dumps(job), tools),
                )
                conn.execute(
                    "UPDATE lgcp_jobs SET newest_version = %s, workload = %s WHERE job_id = %s",
                    (version, str(job.get("workload", "article")), job_id),
                )
        return {"job_id": job_id, "task_version": version, "accepted": True,
                "cancelled": row is not None and row["cancelled_at"] is not None}

    def cancel(self, job_id: str, at: float) -> None:
        """Store the cancellation (committed before the caller acknowledges it)."""
        with self.pool.connection() as conn:
            conn.execute(
                "INSERT INTO lgcp_jobs (job_id, newest_version, workload, cancelled_at)"
                " VALUES (%s, '', '', %s) ON CONFLICT (job_id) DO UPDATE"
                " SET cancelled_at = coalesce(lgcp_jobs.cancelled_at, excluded.cancelled_at)",
                (job_id, at),
            )

    def job(self, job_id: str) -> dict[str, Any] | None:
        with self.pool.connection() as conn:
            return conn.execute("SELECT * FROM lgcp_jobs WHERE job_id = %s", (job_id,)).fetchone()

    def version(self, job_id: str, version: str) -> dict[str, Any] | None:
        with self.pool.connection() as conn:
            return conn.execute(
                "SELECT * FROM lgcp_versions WHERE job_id = %s AND version = %s", (job_id, version)
            ).fetchone()

    def versions(self, job_id: str) -> list[dict[str, Any]]:
        with self.pool.connection() as conn:
            return list(conn.execute(
                "SELECT * FROM lgcp_versions WHERE job_id = %s ORDER BY seq", (job_id,)
            ).fetchall())

    def active_jobs(self) -> list[dict[str, Any]]:
        with self.pool.connection() as conn:
            return list(conn.execute(
                "SELECT * FROM lgcp_jobs WHERE newest_version <> '' ORDER BY job_id"
            ).fetchall())

    # -- sessions -----------------------------------------------------------------------------

    def session(self, job_id: str, version: str) -> dict[str, Any] | None:
        with self.pool.connection() as conn:
            return conn.execute(
                "SELECT * FROM lgcp_sessions WHERE job_id = %s AND version = %s", (job_id, version)
            ).fetchone()

    def session_create_sent(self, job_id: str, version: str, at: float) -> None:
        """Committed before a `sessions.create` leaves: a restart then looks before creating."""
        with self.pool.connection() as conn:
            conn.execute(
                "INSERT INTO lgcp_sessions (job_id, version, create_sent_at, create_attempts)"
                " VALUES (%s, %s, %s, 1) ON CONFLICT (job_id, version) DO UPDATE"
                " SET create_sent_at = excluded.create_sent_at,"
                " create_attempts = lgcp_sessions.create_attempts + 1",
                (job_id, version, at),
            )

    def session_found(self, job_id: str, version: str, session_id: str) -> None:
        with self.pool.connection() as conn:
            conn.execute(
                "INSERT INTO lgcp_sessions (job_id, version, session_id) VALUES (%s, %s, %s)"
                " ON CONFLICT (job_id, version) DO UPDATE"
                " SET session_id = coalesce(lgcp_sessions.session_id, excluded.session_id)",
                (job_id, version, session_id),
            )

    # -- credentials and webhooks -------------------------------------------------------------

    def revoke(self, service: str, at: float, detail: str) -> None:
        with self.pool.connection() as conn:
            conn.execute(
                "INSERT INTO lgcp_revoked (service, at, detail) VALUES (%s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                (service, at, detail[:500]),
            )

    def revoked(self) -> set[str]:
        with self.pool.connection() as conn:
            return {r["service"] for r in conn.execute("SELECT service FROM lgcp_revoked").fetchall()}

    def webhook_seen(self, webhook_id: str, kind: str, session_id: str) -> bool:
        """Record a verified webhook; True when it was handled before (a duplicate)."""
        with self.pool.connection() as conn:
            cur = conn.execute(
                "INSERT INTO lgcp_webhooks (webhook_id, type, session_id) VALUES (%s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                (webhook_id, kind, session_id),
            )
            return cur.rowcount == 0
