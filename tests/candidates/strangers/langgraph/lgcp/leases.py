"""Leases, fencing tokens and the write guard.

Only one worker works a job at a time. A lease row per job names its owner (one *incarnation* of
a worker: a restarted process is a new one), an expiry in scenario seconds and a fencing token
that goes up at every takeover. Another worker takes a job over only once the lease ran out; a
restarted process of the same worker takes it at once (its predecessor is dead), with a new token.

Every write for a job goes through `Leases.write`, which
1. takes the job's *writer lock*, a session-level `pg_try_advisory_lock` on a connection of this
   process (it dies with the process; a frozen writer keeps it, so nobody takes over while its
   write is in flight), held until the answer is in;
2. in one transaction, locks the job row `FOR SHARE` and checks that the job is not cancelled,
   that the version is still the newest, that the tool is still allowed and that the lease is
   ours, and renews it; this transaction commits the moment the request body has been sent
   (`httpio.on_sent`), so a cancellation (an UPDATE of that row) is acknowledged either before
   the check, which then refuses, or after the request left, never in between.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import contextlib
from typing import Any, Iterator

import psycopg
from psycopg.rows import dict_row

from . import httpio
from .settings import Clock, Settings
if TYPE_CHECKING:
    from .store import Pool

LEASE_TTL_S = 20.0      # scenario seconds, declared in GET /health
TAKEOVER_MARGIN_S = 2.0  # clocks of two processes are estimates: wait a little past the expiry
LOCK_CLASS = 4242        # first key of the two-key advisory locks


class NotOurs(Exception):
    """The job may not be written by us now (cancelled, superseded, tool refused, lease lost)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Leases:
    """This process's leases and its writer locks."""

    def __init__(self, pool: "Pool", settings: Settings, clock: Clock) -> None:
        self.pool = pool
        self.settings = settings
        self.clock = clock
        self.me = settings.incarnation
        self.lock_conn = psycopg.connect(settings.database_url, autocommit=True)
        self.guard_conn = psycopg.connect(settings.database_url, autocommit=False, row_factory=dict_row)

    # -- the writer lock ----------------------------------------------------------------------

    def _try_lock(self, job_id: str) -> bool:
        row = self.lock_conn.execute(
            "SELECT pg_try_advisory_lock(%s, hashtext(%s))", (LOCK_CLASS, job_id)
        ).fetchone()
        return bool(row and row[0])

    def _unlock(self, job_id: str) -> None:
        self.lock_conn.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))", (LOCK_CLASS, job_id))

    # -- the lease ----------------------------------------------------------------------------

    def hold(self, job_id: str) -> int | None:
        """Acquire or renew the job's lease; its fencing token when it is ours, else None."""
        now = self.clock.now()
        with self.pool.connection() as conn:
            row = conn.execute("SELECT * FROM lgcp_leases WHERE job_id = %s", (job_id,)).fetchone()
            if row and row["owner"] == self.me:
                cur = conn.execute(
                    "UPDATE lgcp_leases SET expires_at = %s WHERE job_id = %s AND owner = %s",
                    (now + LEASE_TTL_S, job_id, self.me),
                )
                return int(row["token"]) if cur.rowcount else None
            if row and not self._may_take(row, now):
                return None
        if not self._try_lock(job_id):
            return None  # the holder is in the middle of a write (or another worker takes over)
        try:
            with self.pool.connection() as conn, conn.transaction():
                row = conn.execute(
                    "SELECT * FROM lgcp_leases WHERE job_id = %s FOR UPDATE", (job_id,)
                ).fetchone()
                if row is None:
                    conn.execute(
                        "INSERT INTO lgcp_leases (job_id, owner, worker_id, token, expires_at)"
                        " VALUES (%s, %s, %s, 1, %s)",
                        (job_id, self.me, self.settings.worker_id, now + LEASE_TTL_S),
                    )
                    return 1
                if row["owner"] != self.me and not self._may_take(row, now):
                    return None
                token = int(row["token"]) + (0 if row["owner"] == self.me else 1)
                conn.execute(
                    "UPDATE lgcp_leases SET owner = %s, worker_id = %s, token = %s, expires_at = %s"
                    " WHERE job_id = %s",
                    (self.me, self.settings.worker_id, token, now + LEASE_TTL_S, job_id),
                )
                return token
        finally:
            self._unlock(job_id)

    def _may_take(self, row: dict[str, Any], now: float) -> bool:
        if row["worker_id"] == self.settings.worker_id:
            return True  # an earlier incarnation of this worker: that process is dead
        return float(row["expires_at"]) + TAKEOVER_MARGIN_S < now

    def renew(self, job_id: str) -> bool:
        """Push the lease's expiry on; False when it is no longer ours."""
        with self.pool.connection() as conn:
            cur = conn.execute(
                "UPDATE lgcp_leases SET expires_at = %s WHERE job_id = %s AND owner = %s",
                (self.clock.now() + LEASE_TTL_S, job_id, self.me),
            )
            return cur.rowcount > 0

    def holder(self, job_id: str) -> dict[str, Any] | None:
        with self.pool.connection() as conn:
            return conn.execute("SELECT * FROM lgcp_leases WHERE job_id = %s", (job_id,)).fetchone()

    # -- the write guard ----------------------------------------------------------------------

    @contextlib.contextmanager
    def write(self, job_id: str, version: str, tool: str | None = None) -> Iterator[int]:
        """Check everything a write needs, then let exactly one request through; yields the token."""
        if not self._try_lock(job_id):
            raise NotOurs("another worker holds the job's writer lock")
        try:
            conn = self.guard_conn
            try:
                token = self._check(conn, job_id, version, tool)
            except BaseException:
                conn.rollback()
                raise
            httpio.on_sent(conn.commit)
            try:
                yield token
            finally:
                httpio.on_sent(None)
                conn.commit()
        finally:
            self._unlock(job_id)

    def _check(self, conn: psycopg.Connection[dict[str, Any]], job_id: str, version: str,
               tool: str | None) -> int:
        job = conn.execute(
            "SELECT newest_version, cancelled_at FROM lgcp_jobs WHERE job_id = %s FOR SHARE", (job_id,)
        ).fetchone()
        if job is None:
            raise NotOurs("unknown job")
        if job["cancelled_at"] is not None:
            raise NotOurs("cancelled")
        if job["newest_version"] != version:
            raise NotOurs("superseded")
        if tool is not None:
            row = conn.execute(
                "SELECT allowed_tools FROM lgcp_versions WHERE job_id = %s AND version = %s",
                (job_id, version),
            ).fetchone()
            if row is None or tool not in (row["allowed_tools"] or []):
                raise NotOurs(f"tool {tool} is not allowed")
        lease = conn.execute(
            "SELECT owner, token FROM lgcp_leases WHERE job_id = %s FOR UPDATE", (job_id,)
        ).fetchone()
        if lease is None or lease["owner"] != self.me:
            raise NotOurs("lease lost")
        conn.execute(
            "UPDATE lgcp_leases SET expires_at = %s WHERE job_id = %s",
            (self.clock.now() + LEASE_TTL_S, job_id),
        )
        return int(lease["token"])
