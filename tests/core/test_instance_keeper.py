"""The part both Python drivers share (``InstanceKeeper``): a crash abandons the instance, the
candidate's own exception is recorded and kills it, a call to no instance restarts it, and the
restarts are bounded. Ground truth: the history and the errors the keeper records."""

from __future__ import annotations

from typing import Any

import pytest

from durable_harness.harness import History
from durable_harness.harness._clock import VirtualClock
from durable_harness.harness.candidate import CandidateCrashed, CandidateFailed
from durable_harness.harness.drivers._instances import InstanceKeeper


class _Instance:
    def __init__(self, does: Any = True) -> None:
        self.does = does
        self.closed = False

    def step(self) -> bool:
        if isinstance(self.does, BaseException):
            raise self.does
        return bool(self.does)

    def close(self) -> None:
        self.closed = True


def _keeper(make: Any, **kw: Any) -> tuple[InstanceKeeper, History]:
    history = History()

    def start() -> None:
        keeper.instance = make()

    keeper = InstanceKeeper(start, VirtualClock(), history, "worker-1", kw.pop("max_restarts", 25), **kw)
    return keeper, history


def test_a_crash_abandons_the_instance_and_the_next_call_restarts_it() -> None:
    made = [_Instance(CandidateCrashed("the gate fired")), _Instance(True)]
    keeper, history = _keeper(lambda: made.pop(0))
    keeper.instance = made.pop(0)
    crashed = keeper.instance
    assert keeper.step() is None and not keeper.alive and crashed.closed
    assert keeper.last_death == "the gate fired" and keeper.candidate_errors == []
    assert keeper.step() is True and keeper.restarts == 1
    assert [e.type for e in history] == ["restart"]


def test_the_candidates_own_exception_is_recorded_with_the_frames_it_is_read_with() -> None:
    keeper, history = _keeper(_Instance, frames=lambda err: [f"read from {type(err).__name__}"])
    keeper.instance = _Instance(ValueError("bad row"))
    assert keeper.step() is None and not keeper.alive
    [error] = keeper.candidate_errors
    assert (error["method"], error["type"], error["message"], error["frames"]) == (
        "step", "ValueError", "bad row", ["read from ValueError"])
    assert [(e.type, e.data.get("candidate_error")) for e in history] == [("crash", 1)]


def test_restarts_are_bounded() -> None:
    keeper, _ = _keeper(lambda: _Instance(RuntimeError("again")), max_restarts=2)
    keeper.instance = _Instance(RuntimeError("again"))
    assert keeper.step() is None and keeper.step() is None and keeper.step() is None
    with pytest.raises(CandidateFailed, match="restarted 2 times and still crashing"):
        keeper.step()
