"""Who may write for a job, right now: the writer lock, the lease and its fencing token.

- The **writer lock** serialises the work on a job between workers and dies with its holder: an
  exclusive, non-blocking ``flock`` on a file beside the SQLite database (a session-level
  ``pg_try_advisory_lock`` on a connection of its own on PostgreSQL). It is held for the whole
  of a step's work on the job, writes in flight included, so a worker frozen mid-write keeps the
  others from taking the job over until it goes on. Never waited for: a worker that cannot take
  it leaves the job alone for this step.
- The **lease** (in the database) says which worker works the job until when; another worker
  takes it over only once it ran out (or when the holder is a dead earlier instance of itself),
  and every takeover raises the **fencing token** sent with each write (``X-Fencing-Token``), so
  a dead writer's late write is refused at a site that checks tokens. The lease is renewed at
  every step and just before every write.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError

from .store import LEASES, Store, sqlite_path


class WriterLock:
    """A per-job exclusive lock that is released by its holder's death."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.base = sqlite_path(store.url)
        self.held: dict[str, Any] = {}
        self.postgres = store.engine.dialect.name == "postgresql"

    @staticmethod
    def _digest(job_id: str) -> str:
        return hashlib.sha256(job_id.encode("utf-8")).hexdigest()

    def try_acquire(self, job_id: str) -> bool:
        if job_id in self.held:
            return True
        if self.base:
            fd = os.open(f"{self.base}.writer-{self._digest(job_id)[:16]}.lock",
                         os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                return False
            self.held[job_id] = fd
            return True
        if self.postgres:
            key = int(self._digest(job_id)[:15], 16)
            conn = self.store.engine.connect()
            got = conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar()
            conn.commit()
            if not got:
                conn.close()
                return False
            self.held[job_id] = (conn, key)
            return True
        self.held[job_id] = None  # a database without locks: one worker only
        return True

    def release(self, job_id: str) -> None:
        handle = self.held.pop(job_id, None)
        if handle is None:
            return
        if isinstance(handle, int):
            fcntl.flock(handle, fcntl.LOCK_UN)
            os.close(handle)
        else:
            conn, key = handle
            try:
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
                conn.commit()
            finally:
                conn.close()


class Leases:
    """Job leases with fencing tokens, kept in the database."""

    def __init__(self, store: Store, worker_id: str, holder: str, ttl: float) -> None:
        self.store = store
        self.worker_id = worker_id
        self.holder = holder
        self.ttl = ttl

    def row(self, job_id: str) -> dict[str, Any] | None:
        with self.store.tx() as c:
            row = c.execute(select(LEASES).where(LEASES.c.job_id == job_id)).mappings().first()
        return None if row is None else dict(row)

    def acquire(self, job_id: str, now: float) -> int | None:
        """Hold (or renew, or take over) the job's lease; its token, or None if another has it."""
        for _ in range(3):
            row = self.row(job_id)
            if row is None:
                try:
                    with self.store.tx() as c:
                        c.execute(LEASES.insert().values(
                            job_id=job_id, holder=self.holder, worker_id=self.worker_id,
                            expires_at=now + self.ttl, token=1))
                    return 1
                except IntegrityError:
                    continue
            if row["holder"] == self.holder:
                return row["token"] if self.renew(job_id, row["token"], now) else None
            mine_before = row["worker_id"] == self.worker_id
            if not mine_before and row["expires_at"] > now:
                return None
            with self.store.tx() as c:
                done = c.execute(LEASES.update().where(LEASES.c.job_id == job_id)
                                 .where(LEASES.c.holder == row["holder"])
                                 .where(LEASES.c.token == row["token"])
                                 .values(holder=self.holder, worker_id=self.worker_id,
                                         expires_at=now + self.ttl, token=row["token"] + 1))
            if done.rowcount == 1:
                return row["token"] + 1
        return None

    def renew(self, job_id: str, token: int, now: float) -> bool:
        """Extend the lease from ``now``; False if it is no longer this instance's."""
        with self.store.tx() as c:
            done = c.execute(LEASES.update().where(LEASES.c.job_id == job_id)
                             .where(LEASES.c.holder == self.holder)
                             .where(LEASES.c.token == token)
                             .values(expires_at=now + self.ttl))
        return done.rowcount == 1

    def owner(self, job_id: str) -> str | None:
        row = self.row(job_id)
        return None if row is None else str(row["worker_id"])
