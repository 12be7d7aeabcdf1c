"""The approval authority's state: publish approvals granted, revoked and expiring on the clock.

An approval is written only by the harness's reviewer (``grant``, ``revoke``, ``expire``), never
through the API. It binds a job id, a task version, an action (``publish``), a target (service,
object type, object id) and the digest of the content that was approved; it may expire. Its status
is read at the instant it is asked for: ``active``, ``revoked`` or ``expired``.

What it deliberately does not do: HTTP (``_service``), or decide whether a publish was
authorised (the harness's checkers judge that from ``truth()``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["Approval", "ApprovalState", "Clock"]


class Clock(Protocol):
    def now(self) -> float: ...
    def unix(self) -> int: ...


@dataclass
class Approval:
    id: str
    job_id: str
    task_version: str
    action: str
    target: dict[str, Any]
    content_sha256: str
    granted_by: str
    granted_at_s: float
    expires_at_s: float | None = None
    revoked_at_s: float | None = None
    revoked_by: str | None = None
    history: list[dict[str, Any]] = field(default_factory=list)

    def status_at(self, t: float) -> str:
        if self.revoked_at_s is not None and self.revoked_at_s <= t:
            return "revoked"
        if self.expires_at_s is not None and self.expires_at_s <= t:
            return "expired"
        return "active"


class ApprovalState:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._approvals: dict[str, Approval] = {}
        self.mutations = 0

    # -- the reviewer's side (never the candidate's) -------------------------------------------
    def grant(self, *, job_id: str, task_version: str, action: str, target: Mapping[str, Any], content_sha256: str,
              granted_by: str, expires_in_s: float | None = None) -> Approval:
        now = self._clock.now()
        approval = Approval(id=f"apr_{len(self._approvals) + 1:04d}", job_id=job_id, task_version=str(task_version),
                            action=action, target=dict(target), content_sha256=content_sha256, granted_by=granted_by,
                            granted_at_s=now, expires_at_s=None if expires_in_s is None else now + float(expires_in_s))
        approval.history.append({"at_s": now, "event": "granted", "by": granted_by})
        self._approvals[approval.id] = approval
        self.mutations += 1
        return approval

    def revoke(self, approval_id: str, by: str) -> Approval:
        approval = self._approvals[approval_id]
        now = self._clock.now()
        approval.revoked_at_s, approval.revoked_by = now, by
        approval.history.append({"at_s": now, "event": "revoked", "by": by})
        self.mutations += 1
        return approval

    def expire(self, approval_id: str) -> Approval:
        approval = self._approvals[approval_id]
        now = self._clock.now()
        approval.expires_at_s = now
        approval.history.append({"at_s": now, "event": "expired", "by": "clock"})
        self.mutations += 1
        return approval

    # -- reading -----------------------------------------------------------------------------
    def get(self, approval_id: str) -> Approval | None:
        return self._approvals.get(approval_id)

    def select(self, **wanted: str) -> list[Approval]:
        """Approvals, oldest first, whose fields equal ``wanted`` (``status`` as of now)."""
        now = self._clock.now()
        out = []
        for a in self._approvals.values():
            fields = {"job_id": a.job_id, "task_version": a.task_version, "action": a.action, "status": a.status_at(now)}
            if all(fields.get(k) == v for k, v in wanted.items()):
                out.append(a)
        return out

    def truth(self) -> list[dict[str, Any]]:
        return [{"id": a.id, "job_id": a.job_id, "task_version": a.task_version, "action": a.action,
                 "target": dict(a.target), "content_sha256": a.content_sha256, "granted_by": a.granted_by,
                 "granted_at_s": a.granted_at_s, "expires_at_s": a.expires_at_s, "revoked_at_s": a.revoked_at_s,
                 "revoked_by": a.revoked_by, "history": [dict(h) for h in a.history]} for a in self._approvals.values()]
