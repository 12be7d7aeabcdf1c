"""Pagination through the real openai SDK: session items (CursorPage) beyond 250 items in both
orders, turns, turn items (ConversationCursorPage with an opaque last_id), limits, legacy null ids."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import openai
import pydantic
import pytest
from _article_world import AGENT
from openai.pagination import SyncConversationCursorPage, SyncCursorPage
from openai.types.beta import AgentFunctionCallItem, AgentReasoningItem, AgentSessionMessage
from openai.types.beta.agent_session_item import FunctionCallOutputItemResource
from openai.types.beta.agents.sessions import Turn

if TYPE_CHECKING:
    from conftest import OpenAIWorld, OpenAIWorlds

THINK_S = 1.5
PREAMBLE = 250
STRICT: dict[str, type[pydantic.BaseModel]] = {
    "message": AgentSessionMessage, "reasoning": AgentReasoningItem, "function_call": AgentFunctionCallItem,
    "function_call_output": FunctionCallOutputItemResource,
}


@dataclass
class World:
    """An ``OpenAIWorld`` plus the one session the tests read."""

    world: OpenAIWorld
    session_id: str

    def __getattr__(self, name: str) -> Any:
        return getattr(self.world, name)


@pytest.fixture(scope="module", params=["gate", "loopback"])
def world(request: pytest.FixtureRequest, openai_worlds: OpenAIWorlds) -> World:
    """One long session: a user message, 250 preamble items and the first function call (252 items),
    in-process through the gate and over loopback HTTP.

    Module-scoped because every test here only reads it.
    """
    job = {"job_id": "job-long", "task_version": "2", "workload": "article", "allowed_tools": [],
           "input": {"topic": "rainwater harvesting", "title": "Rainwater At Home", "focus_keyword": "rain barrel",
                     "preamble_items": PREAMBLE}}
    base = openai_worlds(job, seed=5, transport=request.param)
    session = base.client.beta.agents.sessions.create(environment={"type": "none"}, agent=AGENT,
                                                      input="Write the article.",
                                                      metadata={"job_id": "job-long", "task_version": "2"})
    base.clock.sleep(THINK_S)
    return World(base, session.id)


TOTAL = 1 + PREAMBLE + 1


def test_items_default_to_desc_and_twenty(world: World) -> None:
    page = world.client.beta.agents.sessions.items.list(world.session_id)
    assert isinstance(page, SyncCursorPage)
    assert len(page.data) == 20 and page.has_more is True
    assert isinstance(page.data[0], AgentFunctionCallItem)  # newest first


@pytest.mark.parametrize("order", ["asc", "desc"])
def test_auto_pagination_walks_every_item_in_three_requests(world: World, order: str) -> None:
    before = world.requests_to("/items")
    items = list(world.client.beta.agents.sessions.items.list(world.session_id, limit=100, order=order))
    assert world.requests_to("/items") - before == 3
    assert len(items) == TOTAL
    ids = [i.id for i in items]
    assert len(set(ids)) == TOTAL
    oldest_first = ids if order == "asc" else ids[::-1]
    assert oldest_first == sorted(oldest_first)  # counters are zero-padded: creation order
    assert isinstance(items[0 if order == "asc" else -1], AgentSessionMessage)


def test_iter_pages_gives_100_100_52_and_both_orders_agree(world: World) -> None:
    asc_pages = list(world.client.beta.agents.sessions.items.list(world.session_id, limit=100, order="asc")
                     .iter_pages())
    desc_pages = list(world.client.beta.agents.sessions.items.list(world.session_id, limit=100).iter_pages())
    assert [len(p.data) for p in asc_pages] == [100, 100, TOTAL - 200]
    assert [p.has_more for p in desc_pages] == [True, True, False]
    asc = [i.id for p in asc_pages for i in p.data]
    desc = [i.id for p in desc_pages for i in p.data]
    assert asc == desc[::-1]


def test_raw_page_shape_and_exclusive_after(world: World) -> None:
    first = world.get(f"/agents/sessions/{world.session_id}/items", limit=3, order="asc").json()
    assert set(first) == {"object", "data", "first_id", "last_id", "has_more"}
    assert first["object"] == "list"
    assert (first["first_id"], first["last_id"]) == (first["data"][0]["id"], first["data"][-1]["id"])
    after = world.get(f"/agents/sessions/{world.session_id}/items", limit=3, order="asc",
                      after=first["last_id"]).json()
    assert after["data"][0]["id"] > first["last_id"]
    back = world.get(f"/agents/sessions/{world.session_id}/items", limit=3, order="desc",
                     after=after["data"][1]["id"]).json()
    assert back["data"][0]["id"] == after["data"][0]["id"]


def test_every_item_validates_strictly(world: World) -> None:
    kinds = set()
    after: dict[str, str] = {}
    for _ in range(5):
        body = world.get(f"/agents/sessions/{world.session_id}/items", limit=100, order="asc", **after).json()
        for raw in body["data"]:
            STRICT[raw["type"]].model_validate(raw)
            assert raw["turn_id"] and raw["id"]
            kinds.add((raw["type"], raw.get("phase")))
        if not body["has_more"]:
            break
        after = {"after": body["last_id"]}
    assert kinds == {("message", None), ("reasoning", None), ("message", "commentary"), ("function_call", None)}


@pytest.mark.parametrize("params, param", [
    ({"limit": 0}, "limit"), ({"limit": 101}, "limit"), ({"limit": "x"}, "limit"),
    ({"order": "newest"}, "order"), ({"after": "item_nope"}, "after"),
])
def test_bad_page_queries_are_400(world: World, params: dict[str, Any], param: str) -> None:
    response = world.get(f"/agents/sessions/{world.session_id}/items", **params)
    assert response.status_code == 400
    assert response.json()["error"]["param"] == param


def test_sdk_surfaces_a_bad_limit_as_bad_request(world: World) -> None:
    with pytest.raises(openai.BadRequestError, match="limit"):
        world.client.beta.agents.sessions.items.list(world.session_id, limit=101)


def test_turn_items_page_with_an_opaque_last_id(world: World) -> None:
    turn_id = world.client.beta.agents.sessions.turns.list(world.session_id).data[0].id
    turn_items = world.client.beta.agents.sessions.turns.items
    page = turn_items.list(turn_id, session_id=world.session_id, limit=100, order="asc")
    assert isinstance(page, SyncConversationCursorPage)
    assert page.last_id is not None and page.last_id != page.data[-1].id  # "can differ from the last item's ID"
    pages = list(page.iter_pages())
    assert [len(p.data) for p in pages] == [100, 100, TOTAL - 200]
    everything = [i.id for i in turn_items.list(turn_id, session_id=world.session_id, limit=100, order="asc")]
    session_items = [i.id for i in world.client.beta.agents.sessions.items.list(world.session_id, limit=100,
                                                                                order="asc")]
    assert everything == session_items
    by_item_id = world.get(f"/agents/sessions/{world.session_id}/turns/{turn_id}/items", order="asc", limit=2,
                           after=everything[0]).json()
    assert [i["id"] for i in by_item_id["data"]] == everything[1:3]
    assert set(by_item_id) >= {"data", "has_more", "last_id"}


def test_turns_list_and_retrieve(world: World) -> None:
    turns = world.client.beta.agents.sessions.turns.list(world.session_id)
    assert isinstance(turns, SyncCursorPage)
    turn = turns.data[0]
    assert isinstance(turn, Turn)
    assert (turn.status, turn.session_id, turn.object) == ("waiting", world.session_id, "agent.session.turn")
    Turn.model_validate(world.get(f"/agents/sessions/{world.session_id}/turns/{turn.id}").json())
    assert world.client.beta.agents.sessions.turns.retrieve(turn.id, session_id=world.session_id).id == turn.id


# -- tests that change state get their own small world ----------------------------------------
@pytest.fixture
def small(openai_worlds: OpenAIWorlds, transport: str) -> World:
    job = {"job_id": "j", "task_version": "1", "workload": "article", "allowed_tools": [],
           "input": {"topic": "t", "title": "T", "focus_keyword": "k", "images": 0}}
    base = openai_worlds(job, seed=1, transport=transport)
    session = base.client.beta.agents.sessions.create(environment={"type": "none"}, agent=AGENT,
                                                      input="Write it.")
    return World(base, session.id)


def _new_turn(world: World, text: str) -> None:
    sessions = world.client.beta.agents.sessions
    sessions.events.create(world.session_id, events=[{"type": "agent.session.input.cancel"}])
    sessions.events.create(world.session_id, events=[{"type": "agent.session.input.message", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": text}]}]}])


def test_turns_are_ordered_by_creation_with_exclusive_after(small: World) -> None:
    _new_turn(small, "continue")
    small.clock.sleep(THINK_S)
    _new_turn(small, "continue again")
    turns = small.client.beta.agents.sessions.turns
    asc = [t.id for t in turns.list(small.session_id, order="asc")]
    assert len(asc) == 3
    assert [t.id for t in turns.list(small.session_id)] == asc[::-1]
    assert [t.id for t in turns.list(small.session_id, order="asc", after=asc[0])] == asc[1:]
    assert [t.id for t in turns.list(small.session_id, limit=1)] == asc[::-1]  # three pages of one


def test_turn_of_another_session_is_404(small: World) -> None:
    other = small.client.beta.agents.sessions.create(environment={"type": "none"}, agent=AGENT,
                                                     input="Other.")
    theirs = small.client.beta.agents.sessions.turns.list(other.id).data[0].id
    with pytest.raises(openai.NotFoundError):
        small.client.beta.agents.sessions.turns.retrieve(theirs, session_id=small.session_id)
    with pytest.raises(openai.NotFoundError):
        small.client.beta.agents.sessions.turns.items.list(theirs, session_id=small.session_id)


def test_a_legacy_null_id_stops_cursor_paging_but_not_turn_item_paging(small: World) -> None:
    small.fake.append_legacy_user_message(small.session_id, "an old message")
    items = small.client.beta.agents.sessions.items
    page = items.list(small.session_id, limit=1)
    assert page.data[0].id is None and page.has_more is True
    assert len(list(items.list(small.session_id, limit=1))) == 1  # the SDK stops silently, as the real one does
    turn_id = small.client.beta.agents.sessions.turns.list(small.session_id).data[0].id
    walked = list(small.client.beta.agents.sessions.turns.items.list(turn_id, session_id=small.session_id, limit=1))
    assert len(walked) == 2 and walked[0].id is None
    with pytest.raises(ValueError, match="unknown or has no turn"):
        small.fake.append_legacy_user_message("sess_nope", "x")
