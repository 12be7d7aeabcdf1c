"""A lagging filtered listing, read with the real SDK's auto-pager: the lagging sessions are out of
the index, so a page is filled with the next visible ones and is never empty while ``has_more`` says
more are coming (the SDK's pager stops at an empty page)."""

from __future__ import annotations

from conftest import OpenAIWorlds

from durable_harness.harness.faults import Trigger, get_fault_kind

METADATA = {"job_id": "job-1", "task_version": "1"}  # the world's job: its agent answers


def _session(world: object) -> str:
    client = world.client  # type: ignore[attr-defined]
    return str(client.beta.agents.sessions.create(environment={"type": "none"}, agent={"model": "gpt-5"},
                                                  metadata=METADATA, input="Write the article.").id)


def test_a_page_of_lagging_sessions_is_filled_from_the_next_so_the_pager_reads_on(openai_worlds: OpenAIWorlds) -> None:
    lag = get_fault_kind("listing_lag")(0, Trigger("*", "GET", "/agents/sessions", times=None), {"window_s": 10})
    world = openai_worlds(faults=[lag])
    sessions = world.client.beta.agents.sessions
    old = [_session(world) for _ in range(5)]
    assert list(sessions.list(metadata=METADATA, limit=2)) == []  # every new one lags once, at least
    world.clock.jump(world.clock.now() + 60)
    new = [_session(world) for _ in range(2)]  # the newest first: the first page is only these
    seen = [s.id for s in sessions.list(metadata=METADATA, limit=2, order="desc")]
    assert seen == list(reversed(old)), (seen, new)
    first = sessions.list(metadata=METADATA, limit=2, order="desc")
    assert [s.id for s in first.data] == list(reversed(old))[:2] and first.has_more is True
    world.clock.jump(world.clock.now() + 60)  # the lag has passed: all seven
    assert [s.id for s in sessions.list(metadata=METADATA, limit=3, order="desc")] == list(reversed(old + new))


def test_a_metadata_update_lags_in_filtered_listings_as_a_new_session_does(openai_worlds: OpenAIWorlds) -> None:
    lag = get_fault_kind("listing_lag")(0, Trigger("*", "GET", "/agents/sessions", times=None), {"window_s": 10})
    world = openai_worlds(faults=[lag])
    sessions = world.client.beta.agents.sessions
    sid = _session(world)
    world.clock.jump(world.clock.now() + 60)
    assert [s.id for s in sessions.list(metadata=METADATA)] == []  # lagged once
    assert [s.id for s in sessions.list(metadata=METADATA)] == [sid]
    sessions.update(sid, metadata={**METADATA, "phase": "drafted"})
    assert [s.id for s in sessions.list(metadata=METADATA)] == []  # the update is not in the index yet
    world.clock.jump(world.clock.now() + 60)
    assert [s.id for s in sessions.list(metadata={**METADATA, "phase": "drafted"})] == [sid]
