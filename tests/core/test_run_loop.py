"""The run loop ends a phase only when the candidate is quiet *and* nobody just acted: a person (or
a fault) whose action took effect during the last step gets the candidate one more step to see it.
In real time (a process) a reviewer's approval can land between the step's last look at the world
and the loop's decision; the loop then went on to heal, and a publish that the approval allowed
was never tried under the scenario's faults. Stub world and driver: only the loop is under test."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from durable_harness.harness._run import _drive
from durable_harness.harness._workers import Workers


class _Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def next_deadline(self) -> float | None:
        return None

    def jump(self, to: float) -> None:
        self.t = to


class _World:
    def __init__(self) -> None:
        self.clock = _Clock()
        self.nemesis = SimpleNamespace(firings=0)
        self.seed = 7

    def waiting(self) -> bool:
        return False

    def begin_step(self) -> None: ...

    def deploy_if_due(self, drivers: Any) -> None: ...

    def check(self) -> None: ...

    def after_step(self, driver: Any) -> bool:
        return False


class _Driver:
    """Never progresses; a person acts during its steps listed in ``act_in``."""

    def __init__(self, world: _World, act_in: set[int], worker_id: str = "worker-1") -> None:
        self.world, self.act_in, self.worker_id = world, act_in, worker_id
        self.alive, self.steps, self.restarts, self.candidate_errors = True, 0, 0, []

    def step(self) -> bool:
        self.steps += 1
        if self.steps in self.act_in:
            self.world.nemesis.firings += 1
        return False

    def report(self, job_id: str) -> dict[str, Any]:
        return {"job_id": job_id, "outcome": "needs_human"}


SCENARIO = SimpleNamespace(expect=SimpleNamespace(max_steps=50, deadline_s=1000.0))


@pytest.mark.parametrize(("act_in", "steps"), [(set(), 1), ({1}, 2), ({1, 2}, 3)])
def test_a_single_worker_gets_one_more_step_after_each_action(act_in: set[int], steps: int) -> None:
    world = _World()
    driver = _Driver(world, act_in)
    assert _drive(world, driver, SCENARIO, "job", 0) == steps  # type: ignore[arg-type]
    assert driver.steps == steps


@pytest.mark.parametrize(("act_in", "rounds"), [(set(), 1), ({1}, 2)])
def test_workers_get_one_more_round_after_an_action(act_in: set[int], rounds: int) -> None:
    world = _World()
    first, second = _Driver(world, act_in), _Driver(world, set(), "worker-2")
    workers = Workers(world, [first, second])
    workers.drive("job", 0, 50, 1000.0, quiesce=False)
    assert (first.steps, second.steps) == (rounds, rounds)
