from __future__ import annotations

import pytest

from durable_harness.harness import VirtualClock, component_random, derive_seed, scenario_seed
from durable_harness.harness._clock import ClockError


def test_sleep_autojumps_and_fires_timers_in_order() -> None:
    clock = VirtualClock()
    fired: list[tuple[str, float]] = []
    clock.call_later(5, lambda: fired.append(("b", clock.now())))
    clock.call_later(2, lambda: fired.append(("a", clock.now())))
    clock.sleep(600)
    assert fired == [("a", 2.0), ("b", 5.0)]
    assert clock.now() == 600.0


def test_clock_refuses_to_go_backwards() -> None:
    clock = VirtualClock(10)
    with pytest.raises(ClockError, match="never goes backwards"):
        clock.jump(9)
    with pytest.raises(ClockError, match="must be >= 0"):
        clock.sleep(-1)


def test_next_deadline_and_run_due() -> None:
    clock = VirtualClock()
    assert clock.next_deadline() is None
    hits: list[int] = []
    clock.call_at(0, lambda: hits.append(1))
    assert clock.next_deadline() == 0
    assert clock.run_due() == 1 and hits == [1]


def test_jump_listener_sees_each_jump() -> None:
    clock = VirtualClock()
    seen: list[tuple[float, float]] = []
    clock.on_jump(lambda a, b: seen.append((a, b)))
    clock.sleep(3)
    clock.sleep(0)
    assert seen == [(0.0, 3.0)]


def test_component_streams_are_independent_and_stable() -> None:
    a1 = component_random(7, "fakes.wordpress").random()
    a2 = component_random(7, "fakes.wordpress").random()
    b = component_random(7, "fakes.openai_agents").random()
    assert a1 == a2 != b
    assert derive_seed(7, "x") != derive_seed(8, "x")
    assert scenario_seed("baseline") == scenario_seed("baseline") != scenario_seed("other")


def test_seed_arguments_are_validated() -> None:
    with pytest.raises(TypeError, match="root_seed"):
        derive_seed("7", "x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="component"):
        derive_seed(7, "")
