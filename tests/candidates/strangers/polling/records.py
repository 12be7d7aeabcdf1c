"""The records of the control plane's store, as the rest of the control plane sees them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Call", "Delivery", "Job", "Message", "Operation"]


@dataclass(frozen=True)
class Job:
    job_id: str
    task_version: str
    spec: Mapping[str, Any]
    session_id: str | None
    session_requested_at: float | None
    outcome: str
    reason: str | None
    resume_attempts: int
    cancel_requested: bool
    env_notice_needed: bool
    read_post_id: int | None
    active: bool
    superseded_by: str | None
    article_done: bool
    tools_dirty: bool

    @property
    def key(self) -> tuple[str, str]:
        return (self.job_id, self.task_version)

    @property
    def workload(self) -> str:
        return str(self.spec.get("workload", ""))

    @property
    def inputs(self) -> Mapping[str, Any]:
        value = self.spec.get("input")
        return value if isinstance(value, Mapping) else {}

    @property
    def session_requested(self) -> bool:
        """A session create went out (or may have): find it before ever creating another."""
        return self.session_requested_at is not None

    @property
    def stopping(self) -> bool:
        """Cancelled by its user, or superseded by a newer version: only reads and the turn's cancel."""
        return self.cancel_requested or self.superseded_by is not None

    @property
    def allowed_tools(self) -> list[str]:
        """The job's allowed tools as they are now (a later submit of the same version may change them)."""
        tools = self.spec.get("allowed_tools")
        return [str(t) for t in tools] if isinstance(tools, list) else []

    def budget(self, name: str, default: int) -> int:
        budget = self.spec.get("budget")
        value = budget.get(name) if isinstance(budget, Mapping) else None
        return value if isinstance(value, int) and value >= 0 else default


@dataclass(frozen=True)
class Operation:
    op_key: str
    role: str
    kind: str
    match_key: str
    request_hash: str
    request: Mapping[str, Any]
    state: str
    definitive: bool
    remote_id: str | None
    result: Mapping[str, Any] | None
    error: str | None
    attempts: int
    not_before: float
    call_id: str | None


@dataclass(frozen=True)
class Call:
    call_id: str
    turn_id: str
    name: str
    arguments: Mapping[str, Any]
    status: str
    answer: Mapping[str, Any] | None
    idempotency_key: str | None
    answered_at: float | None
    attempts: int
    not_before: float


@dataclass(frozen=True)
class Message:
    msg_key: str
    kind: str
    body: str
    after_turn_id: str | None
    state: str


@dataclass(frozen=True)
class Delivery:
    call_id: str
    artifact_id: str
    path: str
    sha256: str
    uri: str
    state: str
