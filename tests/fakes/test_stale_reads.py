"""``stale_read`` holds back every read of a session after an input is accepted, not only the
session object: its items and its turns too, each as its last answer showed them, for the window
(read with the real SDK)."""

from __future__ import annotations

from _article_world import AGENT
from conftest import OpenAIWorlds

from durable_harness.harness.faults import Trigger, get_fault_kind


def test_items_and_turns_lag_behind_an_input_for_the_window(openai_worlds: OpenAIWorlds) -> None:
    stale = get_fault_kind("stale_read")(0, Trigger("openai", "*", "*", times=None), {"window_s": 2})
    world = openai_worlds(seed=5, faults=[stale])
    sessions = world.client.beta.agents.sessions
    sid = sessions.create(environment={"type": "openai_hosted"}, agent=AGENT,
                          metadata={"job_id": "job-1", "task_version": "1"}).id  # idle: no turn yet
    before_items = [i.id for i in sessions.items.list(sid)]
    before_turns = [t.id for t in sessions.turns.list(sid)]
    sessions.events.create(sid, events=[{"type": "agent.session.input.message", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "Write the article."}]}]}])
    assert [i.id for i in sessions.items.list(sid)] == before_items  # held back
    assert [t.id for t in sessions.turns.list(sid)] == before_turns
    world.clock.jump(world.clock.now() + 3)  # the window has passed
    assert len([i.id for i in sessions.items.list(sid)]) > len(before_items)
    assert len([t.id for t in sessions.turns.list(sid)]) > len(before_turns)
    assert {e["read"].split("?")[0] for e in stale.state.evidence} >= {f"/agents/sessions/{sid}/items",
                                                                       f"/agents/sessions/{sid}/turns"}
