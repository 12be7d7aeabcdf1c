"""Leases, written from the contract's *Several workers*: one worker at a time per job.

A row per job in ``dh_poll_leases`` (owner, fencing token, expiry), kept in the control plane's own
SQLite file, read and written in one ``BEGIN IMMEDIATE`` transaction each. A worker works a job only
while it holds the lease: it takes a free or expired one (the token goes up), renews its own, and
takes over one its own dead predecessor left. Every write is a write entry: an exclusive ``flock``
on a file beside the database (it dies with the process), the lease checked under it, the write
sent with ``X-Fencing-Token: <job_id>:<token>``, the lease renewed after. A takeover needs the same
lock, so no one takes a job over while its writer has a write on the way.

It does not decide what a job does (the engine does).
"""

from __future__ import annotations

import fcntl
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO

__all__ = ["LEASE_TTL_S", "LeaseLost", "Leases"]

LEASE_TTL_S = 15.0


class LeaseLost(Exception):
    """The job is another worker's now."""


class Leases:
    def __init__(self, path: str, worker_id: str, now: Callable[[], float]) -> None:
        self._path = path
        self._worker = worker_id
        self._now = now
        self._mine: dict[str, int] = {}
        self._lock: IO[str] | None = None
        with self._txn() as db:
            db.execute("CREATE TABLE IF NOT EXISTS dh_poll_leases (job_id TEXT PRIMARY KEY, owner TEXT NOT NULL, "
                       "token INTEGER NOT NULL, expires_at REAL NOT NULL)")

    @contextmanager
    def _txn(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self._path, isolation_level=None, timeout=10)
        try:
            db.execute("BEGIN IMMEDIATE")
            yield db
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        finally:
            db.close()

    def hold(self, job_id: str) -> bool:
        """Whether this worker works ``job_id`` now (taking or renewing its lease)."""
        now = self._now()
        with self._txn() as db:
            row = db.execute("SELECT owner, token, expires_at FROM dh_poll_leases WHERE job_id = ?", (job_id,)).fetchone()
            if row is not None and row[0] == self._worker and row[1] == self._mine.get(job_id) and row[2] > now:
                db.execute("UPDATE dh_poll_leases SET expires_at = ? WHERE job_id = ?", (now + LEASE_TTL_S, job_id))
                return True
            if row is not None and row[2] > now and row[0] != self._worker:
                return False
        if not self._take_lock():
            return False
        try:
            with self._txn() as db:
                row = db.execute("SELECT token FROM dh_poll_leases WHERE job_id = ?", (job_id,)).fetchone()
                token = (row[0] if row is not None else 0) + 1
                db.execute("INSERT OR REPLACE INTO dh_poll_leases (job_id, owner, token, expires_at) VALUES (?, ?, ?, ?)",
                           (job_id, self._worker, token, now + LEASE_TTL_S))
        finally:
            self._drop_lock()
        self._mine[job_id] = token
        return True

    @contextmanager
    def writing(self, job_id: str) -> Iterator[dict[str, str]]:
        """A write entry: yields the fencing header; raises ``LeaseLost`` if the job is not ours."""
        if not self._take_lock():
            raise LeaseLost(job_id)
        try:
            with self._txn() as db:
                row = db.execute("SELECT owner, token, expires_at FROM dh_poll_leases WHERE job_id = ?", (job_id,)).fetchone()
            token = self._mine.get(job_id)
            if row is None or row[0] != self._worker or row[1] != token or row[2] <= self._now():
                raise LeaseLost(job_id)
            yield {"X-Fencing-Token": f"{job_id}:{token}"}
            with self._txn() as db:
                db.execute("UPDATE dh_poll_leases SET expires_at = ? WHERE job_id = ? AND owner = ? AND token = ?",
                           (self._now() + LEASE_TTL_S, job_id, self._worker, token))
        finally:
            self._drop_lock()

    def _take_lock(self) -> bool:
        handle = open(self._path + ".lease-lock", "a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        self._lock = handle
        return True

    def _drop_lock(self) -> None:
        handle, self._lock = self._lock, None
        if handle is not None:
            handle.close()  # closing the descriptor releases the flock
