"""The ``Driver`` seam: how the run loop talks to a candidate, whatever runs it.

A driver starts the candidate, passes it the control-API calls, samples its report of the job
(recording every change in the history), delivers webhooks to it, and kills and restarts it. The
in-process driver (a Python object in the harness's process) is one implementation; a process
driver (any language, over HTTP) is another. The run loop, the webhook delivery and the sweep see
only this protocol.

Every call returns ``None`` when the candidate died in it (a crash the harness fired, or the
candidate's own exception, which the driver records); the run loop then restarts it. A candidate
that cannot be run at all raises ``CandidateFailed``; an error of the harness underneath raises
``HarnessError``. Neither is the run loop's to catch here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

__all__ = ["CAPABILITIES", "CandidateFailed", "Driver"]

# Optional parts of the contract a scenario may need (``needs:``), with what provides each in-process.
CAPABILITIES = {"webhooks": "receive_webhook"}


class CandidateFailed(RuntimeError):
    """The candidate cannot be run at all (its factory fails, it lacks a method the contract requires,
    it crashes without end, or it loops without end). ``setup`` marks a scenario that cannot run
    against this candidate (a capability it lacks) rather than a candidate that does not work."""

    def __init__(self, message: str, *, setup: bool = False) -> None:
        super().__init__(message)
        self.setup = setup


class Driver(Protocol):
    worker_id: str

    @property
    def alive(self) -> bool: ...
    @property
    def restarts(self) -> int: ...
    @property
    def candidate_errors(self) -> list[dict[str, Any]]: ...
    @property
    def lease_ttl_s(self) -> float | None: ...  # the lease the candidate declares (workers: 2 scenarios)

    def start(self) -> None: ...
    def accepts(self, capability: str) -> bool: ...
    def submit(self, job: Mapping[str, Any]) -> Mapping[str, Any] | None: ...
    def cancel(self, job_id: str) -> Mapping[str, Any] | None: ...
    def step(self) -> bool | None: ...
    def report(self, job_id: str) -> Mapping[str, Any] | None: ...
    def deliver_webhook(self, headers: Mapping[str, str], body: bytes) -> int | None: ...
    def restart(self, because: str) -> None: ...
    def redeploy(self, spec: str, because: str) -> None: ...  # stop this instance as a deploy does, start ``spec``'s
    def kill(self, because: str, *, spare_op: int | None = None) -> None: ...
    def close(self) -> None: ...
