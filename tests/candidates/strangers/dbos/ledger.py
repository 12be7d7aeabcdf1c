"""The side-effect ledger: one row per business action, keyed by its operation key.

An operation key names the business action, never the agent's call: ``<job>/v<version>/<role>``
(``job-42/v1/image:2``, ``job-42/v1/article``). The agent may ask for the same action again under
a new call id, and the platform may retry a step; both land on the same row.

States follow the contract: PREPARED -> SENT (committed *before* the request leaves) ->
CONFIRMED | FAILED, or UNKNOWN when an error cannot prove the write did not happen. A SENT or
UNKNOWN row is what a DBOS step finds when it runs again after a crash (steps are at-least-once):
it must look the write up by its key before it sends anything again.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as pg_insert

from schema import operations

WRITE_KINDS = ("wp_upload_media", "wp_create_draft", "wp_update_post", "wp_set_seo", "wp_publish")


def op_key(job_id: str, version: str, role: str) -> str:
    return f"{job_id}/v{version}/{role}"


@dataclass(frozen=True)
class Op:
    """One ledger row."""

    op_key: str
    job_id: str
    version: str
    role: str
    kind: str
    state: str
    remote_id: str | None
    request_hash: str | None
    error: str | None
    definite: bool
    receipt: dict[str, Any] | None
    seq: int


def _op(row: Any) -> Op:
    m = row._mapping
    return Op(op_key=m["op_key"], job_id=m["job_id"], version=m["version"], role=m["role"],
              kind=m["kind"], state=m["state"], remote_id=m["remote_id"],
              request_hash=m["request_hash"], error=m["error"], definite=m["definite"],
              receipt=json.loads(m["receipt"]) if m["receipt"] else None, seq=m["seq"])


class Ledger:
    """The operations table."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine

    def get(self, key: str) -> Op | None:
        with self.engine.connect() as c:
            row = c.execute(sa.select(operations).where(operations.c.op_key == key)).first()
        return _op(row) if row is not None else None

    def prepare(self, key: str, job_id: str, version: str, role: str, kind: str,
                request_hash: str) -> Op:
        """The row of an action about to be performed (created PREPARED if new)."""
        with self.engine.begin() as c:
            seq = c.execute(sa.select(sa.func.coalesce(sa.func.max(operations.c.seq), 0))).scalar()
            c.execute(pg_insert(operations).values(
                op_key=key, job_id=job_id, version=version, role=role, kind=kind,
                state="PREPARED", request_hash=request_hash, seq=int(seq or 0) + 1,
                updated_at=time.time()).on_conflict_do_nothing())
            row = c.execute(sa.select(operations).where(operations.c.op_key == key)).first()
        assert row is not None
        return _op(row)

    def mark(self, key: str, state: str, *, remote_id: Any = None, error: str | None = None,
             definite: bool = False, receipt: dict[str, Any] | None = None,
             request_hash: str | None = None) -> None:
        values: dict[str, Any] = {"state": state, "updated_at": time.time(), "definite": definite,
                                  "error": error}
        if remote_id is not None:
            values["remote_id"] = str(remote_id)
        if receipt is not None:
            values["receipt"] = json.dumps(receipt)
        if request_hash is not None:
            values["request_hash"] = request_hash
        with self.engine.begin() as c:
            c.execute(operations.update().where(operations.c.op_key == key).values(**values))

    def for_job(self, job_id: str) -> list[Op]:
        with self.engine.connect() as c:
            rows = c.execute(sa.select(operations).where(operations.c.job_id == job_id)
                             .order_by(operations.c.seq)).all()
        return [_op(r) for r in rows]

    def for_version(self, job_id: str, version: str) -> list[Op]:
        return [op for op in self.for_job(job_id) if op.version == version]

    def media_by_digest(self, job_id: str, version: str, digest: str) -> Op | None:
        """The upload of these very bytes for this job version, if one was ever prepared."""
        for op in self.for_version(job_id, version):
            if op.kind == "wp_upload_media" and op.request_hash == digest:
                return op
        return None
