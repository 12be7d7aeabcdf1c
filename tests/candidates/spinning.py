"""The reference, but its ``step()`` always says it did something (a control plane that spins): the
generic HTTP wrapper must still answer the harness's report between its steps."""

from __future__ import annotations

from typing import Any

from durable_harness.candidates.reference import create

__all__ = ["make"]


class _Spinning:
    def __init__(self, env: Any) -> None:
        self._plane = create(env)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._plane, name)

    def step(self) -> bool:
        self._plane.step()
        return True


def make(env: Any) -> _Spinning:
    return _Spinning(env)
