"""The side-effect ledger and the stored tool results.

Every write to the outside world has an operation keyed by the job, its version and the
business action (`job-42/v1/image:2`), never by the agent's call id. Its row is committed as SENT
*before* the request leaves, and CONFIRMED, FAILED or UNKNOWN once the answer (or its absence) is
known. A LangGraph node that runs again after a restart finds its own SENT row and reconciles
(looks the write up by its key) before it sends anything again: a checkpoint only says that a
node did not *finish*, never that its write did not happen.

The tool result sent for each call is stored before it is sent, so that a node that runs again
sends the very same body under the same idempotency key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import json
from dataclasses import dataclass
from typing import Any

if TYPE_CHECKING:
    from .store import Pool

STATES = ("PREPARED", "SENT", "CONFIRMED", "UNKNOWN", "FAILED")


@dataclass
class Operation:
    key: str
    job_id: str
    version: str
    role: str
    kind: str
    state: str
    remote_id: str | None
    request_hash: str | None
    result: dict[str, Any] | None
    error: str | None
    definite: bool
    attempts: int
    request: dict[str, Any] | None

    @staticmethod
    def of(row: dict[str, Any]) -> "Operation":
        return Operation(
            key=row["operation_key"], job_id=row["job_id"], version=row["version"], role=row["role"],
            kind=row["kind"], state=row["state"], remote_id=row["remote_id"],
            request_hash=row["request_hash"], result=row["result"], error=row["error"],
            definite=bool(row["definite"]), attempts=int(row["attempts"]), request=row["request"],
        )

    def report(self) -> dict[str, Any]:
        """The contract's shape of one ledger entry."""
        entry: dict[str, Any] = {"operation_key": self.key, "kind": self.kind, "state": self.state}
        if self.remote_id is not None:
            entry["remote_id"] = self.remote_id
        if self.request_hash:
            entry["request_hash"] = self.request_hash
        return entry


class Ledger:
    """Operations and stored replies, in our own table beside LangGraph's checkpoints."""

    def __init__(self, pool: "Pool") -> None:
        self.pool = pool

    def get(self, key: str) -> Operation | None:
        with self.pool.connection() as conn:
            row = conn.execute("SELECT * FROM lgcp_operations WHERE operation_key = %s", (key,)).fetchone()
        return Operation.of(row) if row else None

    def prepare(self, key: str, job_id: str, version: str, role: str, kind: str, request_hash: str,
                request: dict[str, Any] | None = None) -> Operation:
        with self.pool.connection() as conn:
            conn.execute(
                "INSERT INTO lgcp_operations"
                " (operation_key, job_id, version, role, kind, state, request_hash, request)"
                " VALUES (%s, %s, %s, %s, %s, 'PREPARED', %s, %s::jsonb) ON CONFLICT DO NOTHING",
                (key, job_id, version, role, kind, request_hash, json.dumps(request)),
            )
        op = self.get(key)
        assert op is not None
        return op

    def sent(self, key: str) -> None:
        """Committed before the request leaves."""
        self._set(key, "SENT", attempts=True)

    def confirm(self, key: str, remote_id: Any, result: dict[str, Any] | None) -> None:
        with self.pool.connection() as conn:
            conn.execute(
                "UPDATE lgcp_operations SET state = 'CONFIRMED', remote_id = %s, result = %s::jsonb,"
                " error = NULL WHERE operation_key = %s",
                (None if remote_id is None else str(remote_id), json.dumps(result), key),
            )

    def unknown(self, key: str, error: str) -> None:
        self._set(key, "UNKNOWN", error=error)

    def failed(self, key: str, error: str, definite: bool) -> None:
        self._set(key, "FAILED", error=error, definite=definite)

    def _set(self, key: str, state: str, error: str | None = None, definite: bool = False,
             attempts: bool = False) -> None:
        with self.pool.connection() as conn:
            conn.execute(
                "UPDATE lgcp_operations SET state = %s, error = coalesce(%s, error), definite = %s,"
                " attempts = attempts + %s WHERE operation_key = %s AND state <> 'CONFIRMED'",
                (state, error, definite, 1 if attempts else 0, key),
            )

    def for_job(self, job_id: str) -> list[Operation]:
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT * FROM lgcp_operations WHERE job_id = %s ORDER BY seq", (job_id,)
            ).fetchall()
        return [Operation.of(r) for r in rows]

    def for_version(self, job_id: str, version: str) -> dict[str, Operation]:
        """The version's operations by role."""
        return {op.role: op for op in self.for_job(job_id) if op.version == version}

    # -- stored tool results ------------------------------------------------------------------

    def reply(self, job_id: str, version: str, call_id: str, event: dict[str, Any]) -> dict[str, Any]:
        """The tool result for a call: the one stored first wins, so a resend is byte-identical."""
        with self.pool.connection() as conn:
            conn.execute(
                "INSERT INTO lgcp_replies (job_id, version, call_id, event) VALUES (%s, %s, %s, %s::jsonb)"
                " ON CONFLICT DO NOTHING",
                (job_id, version, call_id, json.dumps(event)),
            )
            row = conn.execute(
                "SELECT event FROM lgcp_replies WHERE job_id = %s AND version = %s AND call_id = %s",
                (job_id, version, call_id),
            ).fetchone()
        assert row is not None
        return dict(row["event"])

    def stored_reply(self, job_id: str, version: str, call_id: str) -> dict[str, Any] | None:
        with self.pool.connection() as conn:
            row = conn.execute(
                "SELECT event FROM lgcp_replies WHERE job_id = %s AND version = %s AND call_id = %s",
                (job_id, version, call_id),
            ).fetchone()
        return dict(row["event"]) if row else None
