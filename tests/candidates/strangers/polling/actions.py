"""Small value types the parts of the control plane hand each other.

A tool handler decides either an ``Answer`` for the agent's call or a ``Wait`` (the answer is not
known yet: an outcome to look up, a Retry-After to honour). The engine reports a ``Progress`` per
job: whether it did anything, and how long until it is worth looking again (``None`` once settled);
a ``parked`` job waits for a person (a reviewer), not for time, and is looked at once per step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Answer", "Progress", "Wait"]


@dataclass(frozen=True)
class Answer:
    success: bool
    output: Mapping[str, Any] | None = None
    error: str = ""

    @classmethod
    def ok(cls, output: Mapping[str, Any]) -> Answer:
        return cls(True, output=dict(output))

    @classmethod
    def fail(cls, error: str) -> Answer:
        return cls(False, error=error)

    def payload(self) -> dict[str, Any]:
        if self.success:
            return {"success": True, "output": dict(self.output or {})}
        return {"success": False, "error": self.error}


@dataclass(frozen=True)
class Wait:
    seconds: float
    worked: bool = False


@dataclass(frozen=True)
class Progress:
    worked: bool
    wait_s: float | None
    parked: bool = False

    @property
    def settled(self) -> bool:
        return self.wait_s is None

    @classmethod
    def done(cls) -> Progress:
        return cls(True, None)

    @classmethod
    def idle(cls) -> Progress:
        return cls(False, None)

    @classmethod
    def waiting_for_human(cls, worked: bool) -> Progress:
        return cls(worked, 0.0, parked=True)

    def merge(self, other: Progress) -> Progress:
        waits = [w for w in (self.wait_s, other.wait_s) if w is not None]
        return Progress(self.worked or other.worked, min(waits) if waits else None)
