"""The outbox: one ledger row per business action, written before the action is sent.

States (the contract's): ``PREPARED`` (written, nothing sent), ``SENT`` (committed here *before*
the request left), ``CONFIRMED`` (the world has it: a 2xx, or a read-back found it), ``UNKNOWN``
(the request may or may not have been applied: it must be read back before anything else), and
``FAILED`` (proven not applied: a definite refusal, or a read-back that found nothing).

A row is keyed by its operation key (``<job>/v<version>/<role>``), never by a call id: the agent
may ask for one business action several times. ``attempt`` counts the sends; the transitions that
follow a send are conditional on it, so an instance that was paused or superseded cannot overwrite
what a newer attempt recorded. A FAILED row that was not refused definitively may be sent again
(a new attempt); a CONFIRMED row never changes again.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from .store import OPS, Store, dumps

OPEN_STATES = ("SENT", "UNKNOWN")


class Outbox:
    """Ledger rows and their transitions."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # --- reads ----------------------------------------------------------------------------------
    def get(self, op_key: str) -> dict[str, Any] | None:
        with self.store.tx() as c:
            row = c.execute(select(OPS).where(OPS.c.op_key == op_key)).mappings().first()
        return None if row is None else dict(row)

    def for_job(self, job_id: str, version: str | None = None) -> list[dict[str, Any]]:
        query = select(OPS).where(OPS.c.job_id == job_id)
        if version is not None:
            query = query.where(OPS.c.version == version)
        with self.store.tx() as c:
            rows = c.execute(query.order_by(OPS.c.seq)).mappings().all()
        return [dict(r) for r in rows]

    def open_ops(self, job_id: str, version: str | None = None) -> list[dict[str, Any]]:
        return [r for r in self.for_job(job_id, version) if r["state"] in OPEN_STATES]

    @staticmethod
    def receipt(row: dict[str, Any]) -> dict[str, Any]:
        return json.loads(row["receipt"]) if row.get("receipt") else {}

    @staticmethod
    def request(row: dict[str, Any]) -> dict[str, Any]:
        return json.loads(row["request"]) if row.get("request") else {}

    # --- transitions --------------------------------------------------------------------------------
    def prepare(self, *, job_id: str, version: str, role: str, kind: str, is_write: bool,
                request: dict[str, Any], request_hash: str, op_key: str) -> dict[str, Any]:
        """The row of this business action, written PREPARED if it is new."""
        existing = self.get(op_key)
        if existing is not None:
            return existing
        try:
            with self.store.tx() as c:
                seq = c.execute(select(func.count()).select_from(OPS)).scalar_one() + 1
                c.execute(OPS.insert().values(
                    op_key=op_key, job_id=job_id, version=version, role=role, kind=kind,
                    is_write=1 if is_write else 0, state="PREPARED", attempt=0,
                    request_hash=request_hash, request=dumps(request), seq=seq))
        except IntegrityError:
            pass
        row = self.get(op_key)
        assert row is not None
        return row

    def mark_sent(self, op_key: str, now: float) -> int | None:
        """PREPARED/FAILED(not definite) -> SENT, committed before the request leaves.

        Returns the new attempt number, or None if the row may not be sent (already confirmed,
        open, or refused definitively)."""
        with self.store.tx() as c:
            row = c.execute(select(OPS.c.state, OPS.c.attempt, OPS.c.definite)
                            .where(OPS.c.op_key == op_key)).first()
            if row is None:
                return None
            state, attempt, definite = row
            if state == "CONFIRMED" or state in OPEN_STATES or (state == "FAILED" and definite):
                return None
            done = c.execute(OPS.update().where(OPS.c.op_key == op_key)
                             .where(OPS.c.attempt == attempt)
                             .values(state="SENT", attempt=attempt + 1, sent_at=now, error=None))
            return attempt + 1 if done.rowcount == 1 else None

    def confirm(self, op_key: str, remote_id: Any, receipt: dict[str, Any]) -> None:
        """The world has it (a 2xx, or read back): CONFIRMED, for good."""
        with self.store.tx() as c:
            c.execute(OPS.update().where(OPS.c.op_key == op_key)
                      .where(OPS.c.state != "CONFIRMED")
                      .values(state="CONFIRMED", remote_id=None if remote_id is None else str(remote_id),
                              receipt=dumps(receipt), error=None))

    def mark_unknown(self, op_key: str, attempt: int, error: str) -> None:
        with self.store.tx() as c:
            c.execute(OPS.update().where(OPS.c.op_key == op_key).where(OPS.c.attempt == attempt)
                      .where(OPS.c.state == "SENT").values(state="UNKNOWN", error=error))

    def mark_failed(self, op_key: str, error: str, *, definite: bool,
                    attempt: int | None = None) -> None:
        """Proven not applied. ``definite``: refused for good (never send it again)."""
        with self.store.tx() as c:
            query = OPS.update().where(OPS.c.op_key == op_key).where(OPS.c.state != "CONFIRMED")
            if attempt is not None:
                query = query.where(OPS.c.attempt == attempt)
            c.execute(query.values(state="FAILED", error=error, definite=1 if definite else 0))

    def count_writes(self, job_id: str) -> int:
        return sum(1 for r in self.for_job(job_id) if r["is_write"])
