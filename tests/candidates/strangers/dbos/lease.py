"""Per-job leases with fencing tokens, and the write lock that keeps a frozen writer's job.

A lease row (``cp.leases``) names the worker instance that may work a job, until when, and a
fencing token that goes up at every takeover (a restart of the same worker counts as one). Every
DBOS step of the job renews it; every write renews it again, under the write lock, right before
the request is sent, and carries the token as ``X-Fencing-Token: <job_id>:<token>``.

The write lock is a session-level PostgreSQL advisory lock on a connection of its own, held
across the whole write (request and answer). Taking a job over needs that lock too, so a worker
frozen mid-write (SIGSTOP keeps its connection and its lock) cannot be replaced until it goes on;
a worker that dies releases the lock with its connection, and then only the token stops its late
write.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa

from gate import Forbidden
from schema import leases
from settings import Settings


def _lock_key(job_id: str) -> int:
    return int.from_bytes(hashlib.sha256(job_id.encode()).digest()[:8], "big", signed=True)


class Leases:
    """The leases of this worker instance."""

    def __init__(self, engine: sa.Engine, settings: Settings, instance: str) -> None:
        self.engine = engine
        self.settings = settings
        self.instance = instance
        self._lock_engine = sa.create_engine(settings.sqlalchemy_url, poolclass=sa.pool.NullPool)

    @property
    def ttl_real(self) -> float:
        return self.settings.real(self.settings.lease_ttl_s)

    def ensure(self, job_id: str, holding_lock: bool = False) -> int | None:
        """Hold the job's lease: renew it, or take it over when it is free, expired (and its
        write lock is free) or held by a dead earlier instance of this worker. Returns the fencing
        token, or None while another live worker holds it."""
        now = time.time()
        with self.engine.begin() as c:
            row = c.execute(sa.select(leases).where(leases.c.job_id == job_id)
                            .with_for_update()).first()
            if row is None:
                c.execute(leases.insert().values(
                    job_id=job_id, owner_worker=self.settings.worker_id,
                    owner_instance=self.instance, token=1, expires_at=now + self.ttl_real))
                return 1
            if row.owner_instance == self.instance:
                c.execute(leases.update().where(leases.c.job_id == job_id)
                          .values(expires_at=now + self.ttl_real))
                return int(row.token)
            mine_before = row.owner_worker == self.settings.worker_id
            if not mine_before and (row.expires_at > now or not (
                    holding_lock or self.write_lock_free(job_id))):
                return None
            token = int(row.token) + 1
            c.execute(leases.update().where(leases.c.job_id == job_id).values(
                owner_worker=self.settings.worker_id, owner_instance=self.instance, token=token,
                expires_at=now + self.ttl_real))
            return token

    def holder(self, job_id: str) -> tuple[str, float] | None:
        """(owner worker, expiry) of the job's lease, if any."""
        with self.engine.connect() as c:
            row = c.execute(sa.select(leases.c.owner_worker, leases.c.expires_at)
                            .where(leases.c.job_id == job_id)).first()
        return (row.owner_worker, float(row.expires_at)) if row is not None else None

    def check_and_renew(self, job_id: str) -> int:
        """Right before a write, holding the write lock: the lease must be ours (renewed now, or
        taken over under the same rules as ``ensure``); otherwise the write is not sent."""
        token = self.ensure(job_id, holding_lock=True)
        if token is None:
            raise Forbidden("lease: another worker holds the job")
        return token

    def write_lock_free(self, job_id: str) -> bool:
        """Whether no one holds the job's write lock now (probed on a connection of its own)."""
        with self._lock_engine.connect() as conn:
            conn = conn.execution_options(isolation_level="AUTOCOMMIT")
            got = conn.execute(sa.text("SELECT pg_try_advisory_lock(:k)"),
                               {"k": _lock_key(job_id)}).scalar()
            if got:
                conn.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": _lock_key(job_id)})
            return bool(got)

    @contextmanager
    def write_lock(self, job_id: str) -> Iterator[None]:
        """Hold the job's write lock for the block (waits up to a lease's length)."""
        conn = self._lock_engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        try:
            deadline = time.monotonic() + max(self.ttl_real, 1.0)
            while not conn.execute(sa.text("SELECT pg_try_advisory_lock(:k)"),
                                   {"k": _lock_key(job_id)}).scalar():
                if time.monotonic() > deadline:
                    raise Forbidden("lease: the job's write lock is held elsewhere")
                time.sleep(0.05)
            try:
                yield
            finally:
                conn.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": _lock_key(job_id)})
        finally:
            conn.close()
