"""The world may slow every agent's thoughts (``SessionsFake.hold_thoughts(..., slow=)``): while a
worker process restarts beside the others, a thought lasts as many thinking times as fit in the
bound, never more, and the agent thinks at its own pace again once the bound is lifted."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from _article_world import THINK_S, make_world
from _article_world import ArticleWorld as World

if TYPE_CHECKING:
    from conftest import OpenAIWorlds


@pytest.fixture
def world(openai_worlds: OpenAIWorlds) -> World:
    return make_world(openai_worlds)


def _first_call_at(world: World, session_id: str) -> float:
    """The run's time at which the session first needs a tool's answer (polled every 0.1 s)."""
    sessions = world.client.beta.agents.sessions
    for _ in range(1000):
        if sessions.retrieve(session_id).status == "requires_action":
            return world.clock.now()
        world.clock.sleep(0.1)
    raise AssertionError("the agent never asked for a tool")


def test_a_thought_lasts_as_many_thinking_times_as_fit_in_the_bound(world: World) -> None:
    world.fake.hold_thoughts(None, lambda: 5.0)  # 3 thinking times of 1.5 s fit in 5 s, 4 do not
    start = world.clock.now()
    assert _first_call_at(world, world.start()) - start == pytest.approx(3 * THINK_S, abs=0.11)


@pytest.mark.parametrize("bound", [None, 2.9])
def test_no_bound_and_a_bound_under_two_thinking_times_change_nothing(world: World, bound: float | None) -> None:
    world.fake.hold_thoughts(None, lambda: bound)
    start = world.clock.now()
    assert _first_call_at(world, world.start()) - start == pytest.approx(THINK_S, abs=0.11)
