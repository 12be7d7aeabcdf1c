"""Leases: one worker at a time works a job, and its writes carry a fencing token.

Several workers may run on one database, each given the same jobs. A job is worked only by the
worker that holds its lease (``dh_leases``: owner, token, expiry), taken for ``LEASE_TTL_S`` and
renewed at every step, around every write (whatever its answer) and after every pause between two
attempts of a tool. A lease that ran out may be taken over; the token
then goes up by one. A restarted instance takes its own worker's lease over at once (its
predecessor is dead), and the token goes up then too: a write the dead one left on its way carries
the old token.

Every write to WordPress is a *write entry* (``writing``): under a lock that only one worker can
hold and that dies with its holder (an exclusive ``flock`` on a file beside the SQLite database),
the lease is checked to be still ours; the write carries ``X-Fencing-Token: <job_id>:<token>``;
the lease is renewed once it is answered. A takeover needs the same lock. So a worker paused in the
middle of a write keeps the others from taking over until it resumes, and a worker killed in the
middle of one releases the lock with its death: its write may still arrive later (a network may
deliver what a dead sender sent), and then only the token stops it at a site that checks tokens.
A write refused for a stale token (409 ``rest_fencing_token_stale``), or a lease found lost, is
``LeaseLost``: the job is another worker's now, and the step leaves it alone.

On PostgreSQL the lock is a session-level advisory lock (``pg_try_advisory_lock``) on a connection
of its own, which dies with the process as the ``flock`` does. On any other database there is no
such lock (a documented best effort: the token and the lease still hold).

What it deliberately does not do: decide what a job does (the plane does).
"""

from __future__ import annotations

import fcntl
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import IO, Any

from durable_harness.candidates.reference._safeguards import Safeguards
from durable_harness.candidates.reference._store import Store

__all__ = ["LEASE_TTL_S", "LeaseLost", "Leases"]

LEASE_TTL_S = 10.0
FENCING_HEADER = "X-Fencing-Token"


class LeaseLost(Exception):
    """The job is another worker's now: leave it alone."""


class Leases:
    def __init__(self, store: Store, worker_id: str, now: Callable[[], float], database_url: str,
                 sg: Safeguards) -> None:
        self.store = store
        self.worker_id = worker_id
        self.now = now
        self.sg = sg
        self._tokens: dict[str, int] = {}  # the leases this instance took, by job: their tokens
        self._acquired_once: set[str] = set()
        self._lock = _writer_lock(database_url)
        self._depth = 0

    # -- the lease ---------------------------------------------------------------------------
    def hold(self, job_id: str) -> bool:
        """Whether this worker may work ``job_id`` now: it holds the lease (renewed), or took it over."""
        if not self.sg.leases:
            return True
        if not self.sg.renew_leases and job_id in self._acquired_once:  # the bug: taken once, never checked again
            return True
        row = self.store.lease(job_id)
        mine = self._tokens.get(job_id)
        now = self.now()
        if row is not None and row[0] == self.worker_id and row[1] == mine and row[2] > now:
            return self.store.renew_lease(job_id, self.worker_id, mine, now + LEASE_TTL_S)
        fresh = job_id not in self._acquired_once and not self.sg.spare_live_leases_on_start
        if row is not None and row[2] > now and row[0] != self.worker_id and not fresh:  # (fresh: the bug, a
            return False  # start that recovers all work) another worker's, until it runs out (a predecessor of ours is dead: take it over)
        with self._locked(wait=False) as locked:
            if not locked:
                return False  # a write is on its way: no takeover now
            token = (row[1] if row is not None else 0) + 1
            if not self.store.take_lease(job_id, None if row is None else row[1], self.worker_id, token,
                                         now + LEASE_TTL_S):
                return False
        self._tokens[job_id] = token
        self._acquired_once.add(job_id)
        return True

    def headers(self, job_id: str) -> Mapping[str, str]:
        token = self._tokens.get(job_id)
        if token is None or not self.sg.fencing_token or not self.sg.leases:
            return {}
        return {FENCING_HEADER: f"{job_id}:{token}"}

    @contextmanager
    def writing(self, job_id: str) -> Iterator[Mapping[str, str]]:
        """A write entry for ``job_id``: the lock, the lease checked, the token's header; the lease
        renewed after the write. Raises ``LeaseLost`` when the job is not ours any more."""
        if not self.sg.leases or not self.sg.renew_leases:
            yield self.headers(job_id)
            return
        with self._locked(wait=False) as locked:
            if not locked:
                raise LeaseLost(f"{job_id}: another worker is writing for it")
            row, mine = self.store.lease(job_id), self._tokens.get(job_id)
            if row is None or row[0] != self.worker_id or row[1] != mine or row[2] <= self.now():
                raise LeaseLost(f"{job_id}: the lease is not ours any more")
            headers = self.headers(job_id)
            if not self.sg.hold_write_lock:  # the bug: checked, then written without the lock
                self._release()
            assert mine is not None
            try:
                yield headers
            except Exception:  # answered or not, this worker is alive: the lease is renewed if still ours
                self.store.renew_lease(job_id, self.worker_id, mine, self.now() + LEASE_TTL_S)
                raise  # (a crash is no Exception: a dead worker renews nothing)
            self.store.renew_lease(job_id, self.worker_id, mine, self.now() + LEASE_TTL_S)

    def close(self) -> None:
        self._depth = 0
        self._release()

    # -- the lock ---------------------------------------------------------------------------
    @contextmanager
    def _locked(self, *, wait: bool) -> Iterator[bool]:
        """The writer lock (reentrant within this instance): whether it is held."""
        if self._lock is None:
            yield True
            return
        if self._depth == 0 and not self._lock.acquire(wait=wait):
            yield False
            return
        self._depth += 1
        try:
            yield True
        finally:
            self._depth = max(0, self._depth - 1)
            if self._depth == 0:
                self._release()

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()


class _FileLock:
    """An exclusive ``flock`` on a file beside the SQLite database."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._handle: IO[str] | None = None

    def acquire(self, *, wait: bool) -> bool:
        handle = open(self._path, "a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        self._handle = handle
        return True

    def release(self) -> None:
        if self._handle is not None:
            handle, self._handle = self._handle, None
            try:
                fcntl.flock(handle, fcntl.LOCK_UN)
            finally:
                handle.close()


class _AdvisoryLock:
    """A PostgreSQL session-level advisory lock, on a connection of its own (opened at first use)."""

    KEY = 0x6468_7772  # one writer lock per database, as the flock file is one per SQLite database

    def __init__(self, url: str) -> None:
        self._url = url
        self._conn: Any = None
        self._held = False

    def acquire(self, *, wait: bool) -> bool:
        import sqlalchemy as sa

        if self._conn is None:
            self._conn = sa.create_engine(self._url, poolclass=sa.pool.NullPool).connect()
        fn = "pg_advisory_lock" if wait else "pg_try_advisory_lock"
        row = self._conn.execute(sa.text(f"SELECT {fn}(:k)"), {"k": self.KEY}).fetchone()
        self._conn.commit()
        self._held = wait or bool(row[0])
        return self._held

    def release(self) -> None:
        import sqlalchemy as sa

        if self._held and self._conn is not None:
            self._held = False
            self._conn.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": self.KEY})
            self._conn.commit()


def _writer_lock(database_url: str) -> _FileLock | _AdvisoryLock | None:
    if database_url.startswith("sqlite:///") and "?" not in database_url and len(database_url) > len("sqlite:///"):
        return _FileLock(f"{database_url[len('sqlite:///'):]}.writer.lock")
    if database_url.startswith(("postgresql://", "postgresql+")):
        return _AdvisoryLock(database_url)
    return None


def lease_lost(status: int | None, body: Any) -> bool:
    """Whether an answer is a fencing gateway refusing a stale token."""
    return status == 409 and isinstance(body, Mapping) and body.get("code") == "rest_fencing_token_stale"

