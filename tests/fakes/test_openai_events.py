"""Input events through the real openai SDK: tool results, the pending-call race error, cancel,
Idempotency-Key dedupe, thinking on the virtual clock, and all-or-nothing batches."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import openai
import openai.lib.beta.agents  # noqa: F401  # loads the SDK's helpers in the order they import cleanly
import pytest
from openai.lib.streaming.agents._tools import is_pending_call_race  # the SDK's own race predicate
from openai.types.beta import AgentSession
from _article_world import AGENT
from openai.types.beta.agents.sessions import Turn

if TYPE_CHECKING:
    from conftest import OpenAIWorld as World
    from conftest import OpenAIWorlds

THINK_S = 1.5


@pytest.fixture
def world(openai_worlds: OpenAIWorlds, transport: str) -> World:
    """Every test here runs twice: through the gate and over loopback HTTP."""
    return openai_worlds(seed=3, transport=transport)


def start(world: World) -> AgentSession:
    session = world.client.beta.agents.sessions.create(environment={"type": "none"}, agent=AGENT,
                                                       input="Write the article.")
    world.clock.sleep(THINK_S)
    session = world.client.beta.agents.sessions.retrieve(session.id)
    assert session.status == "requires_action"
    return session


def result(action: Any, output: dict[str, Any] | None = None, *, success: bool = True) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "agent.session.input.tool_result", "turn_id": action.turn_id,
                             "call_id": action.call_id, "success": success}
    if success:
        event["output"] = json.dumps(output or {"media_id": 11, "source_url": "https://wp.dh.test/m/11.png"})
    else:
        event["error"] = "Tool handler failed."
    return event


def turn_of(world: World, session: AgentSession, turn_id: str) -> Turn:
    return world.client.beta.agents.sessions.turns.retrieve(turn_id, session_id=session.id)


# -- thinking takes virtual time --------------------------------------------------------------
def test_thinking_takes_think_s_on_the_virtual_clock(world: World) -> None:
    session = world.client.beta.agents.sessions.create(environment={"type": "none"}, agent=AGENT,
                                                       input="Write the article.")
    assert world.fake.next_wakeup() == pytest.approx(THINK_S)
    world.clock.sleep(THINK_S - 0.1)
    assert world.client.beta.agents.sessions.retrieve(session.id).status == "in_progress"
    world.clock.sleep(0.1)
    session = world.client.beta.agents.sessions.retrieve(session.id)
    assert session.status == "requires_action"
    assert world.fake.next_wakeup() is None
    action = session.required_actions[0]
    assert action.type == "function_call" and action.name == "wp_upload_media"
    assert turn_of(world, session, action.turn_id).status == "waiting"


def test_gate_fires_due_timers_before_each_request(world: World) -> None:
    session = world.client.beta.agents.sessions.create(environment={"type": "none"}, agent=AGENT,
                                                       input="Write the article.")
    world.clock.jump(world.clock.now() + THINK_S)  # jump fires timers too; run_due covers call_at(now)
    assert world.client.beta.agents.sessions.retrieve(session.id).status == "requires_action"


# -- tool results -----------------------------------------------------------------------------
def test_tool_result_is_202_with_empty_body_and_resolves_the_action(world: World) -> None:
    session = start(world)
    action = session.required_actions[0]
    response = world.post_events(session.id, [result(action)])
    assert response.status_code == 202
    assert response.content == b""
    session = world.client.beta.agents.sessions.retrieve(session.id)
    assert session.status == "in_progress" and session.required_actions == []
    assert turn_of(world, session, action.turn_id).status == "in_progress"
    world.clock.sleep(THINK_S)
    following = world.client.beta.agents.sessions.retrieve(session.id).required_actions[0]
    assert following.call_id != action.call_id and following.turn_id == action.turn_id


def test_sdk_events_create_returns_none(world: World) -> None:
    session = start(world)
    action = session.required_actions[0]
    raw = world.client.beta.agents.sessions.events.with_raw_response.create(session.id, events=[result(action)])
    assert raw.status_code == 202 and raw.parse() is None


def test_unknown_pending_tool_call_is_the_sdk_race_error(world: World) -> None:
    session = start(world)
    action = session.required_actions[0]
    bogus = {**result(action), "call_id": "call_not_pending"}
    with pytest.raises(openai.BadRequestError) as caught:
        world.client.beta.agents.sessions.events.create(session.id, events=[bogus])
    error = caught.value
    assert error.code == "invalid_request_error"
    assert error.body == {"message": "Unknown pending tool call: call_not_pending", "type": "invalid_request_error",
                          "code": "invalid_request_error", "param": None}
    assert is_pending_call_race(error, "call_not_pending")
    wrong_turn = {**result(action), "turn_id": "turn_9999"}
    with pytest.raises(openai.BadRequestError, match=f"Unknown pending tool call: {action.call_id}"):
        world.client.beta.agents.sessions.events.create(session.id, events=[wrong_turn])


def test_answering_twice_without_a_key_is_unknown_pending(world: World) -> None:
    session = start(world)
    action = session.required_actions[0]
    world.client.beta.agents.sessions.events.create(session.id, events=[result(action)])
    with pytest.raises(openai.BadRequestError, match="Unknown pending tool call"):
        world.client.beta.agents.sessions.events.create(session.id, events=[result(action)])


def test_failed_result_is_recorded_on_the_items(world: World) -> None:
    session = start(world)
    action = session.required_actions[0]
    world.client.beta.agents.sessions.events.create(session.id, events=[result(action, success=False)])
    items = list(world.client.beta.agents.sessions.items.list(session.id, order="asc"))
    call = next(i for i in items if i.type == "function_call")
    output = next(i for i in items if i.type == "function_call_output")
    assert (call.status, output.status, output.error, output.output) == ("failed", "failed", "Tool handler failed.",
                                                                          None)


# -- idempotency ------------------------------------------------------------------------------
def test_same_key_same_body_is_accepted_once(world: World) -> None:
    session = start(world)
    action = session.required_actions[0]
    world.client.beta.agents.sessions.events.create(session.id, events=[result(action)], idempotency_key="k-1")
    items_before = len(list(world.client.beta.agents.sessions.items.list(session.id, limit=100)))
    mutations = world.fake.mutations()
    world.client.beta.agents.sessions.events.create(session.id, events=[result(action)], idempotency_key="k-1")
    assert world.fake.mutations() == mutations
    assert len(list(world.client.beta.agents.sessions.items.list(session.id, limit=100))) == items_before
    assert [c["answered"] for c in world.fake.truth()["tool_calls"]] == [True]


def test_same_key_different_body_is_400(world: World) -> None:
    session = start(world)
    action = session.required_actions[0]
    world.client.beta.agents.sessions.events.create(session.id, events=[result(action)], idempotency_key="k-1")
    other = result(action, {"media_id": 99, "source_url": "x"})
    with pytest.raises(openai.BadRequestError) as caught:
        world.client.beta.agents.sessions.events.create(session.id, events=[other], idempotency_key="k-1")
    assert caught.value.code == "idempotency_key_reused"


def test_a_key_of_a_rejected_request_is_not_remembered(world: World) -> None:
    session = start(world)
    action = session.required_actions[0]
    bogus = {**result(action), "call_id": "call_early"}
    assert world.post_events(session.id, [bogus], key="k-race").status_code == 400
    assert world.post_events(session.id, [result(action)], key="k-race").status_code == 202


# -- messages and cancel ----------------------------------------------------------------------
def message(text: str) -> dict[str, Any]:
    return {"type": "agent.session.input.message",
            "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}]}


def test_message_while_a_turn_is_active_is_400(world: World) -> None:
    session = start(world)
    with pytest.raises(openai.BadRequestError, match="already has an active turn"):
        world.client.beta.agents.sessions.events.create(session.id, events=[message("continue")])


def test_cancel_ends_the_turn_and_marks_its_call_incomplete(world: World) -> None:
    session = start(world)
    action = session.required_actions[0]
    world.client.beta.agents.sessions.events.create(session.id, events=[{"type": "agent.session.input.cancel"}])
    session = world.client.beta.agents.sessions.retrieve(session.id)
    assert (session.status, session.required_actions) == ("idle", [])
    turn = turn_of(world, session, action.turn_id)
    assert turn.status == "cancelled" and turn.completed_at is not None
    call = next(i for i in world.client.beta.agents.sessions.items.list(session.id) if i.type == "function_call")
    assert call.status == "incomplete"
    with pytest.raises(openai.BadRequestError, match="Unknown pending tool call"):
        world.client.beta.agents.sessions.events.create(session.id, events=[result(action)])


def test_cancel_while_thinking_drops_the_thought(world: World) -> None:
    session = world.client.beta.agents.sessions.create(environment={"type": "none"}, agent=AGENT,
                                                       input="Write the article.")
    world.client.beta.agents.sessions.events.create(session.id, events=[{"type": "agent.session.input.cancel"}])
    world.clock.sleep(10 * THINK_S)
    assert world.client.beta.agents.sessions.retrieve(session.id).status == "idle"
    assert world.fake.truth()["tool_calls"] == []
    assert world.fake.next_wakeup() is None


def test_cancel_without_an_active_turn_changes_nothing(world: World) -> None:
    session = world.client.beta.agents.sessions.create(environment={"type": "openai_hosted"},
                                                       agent=AGENT)
    mutations = world.fake.mutations()
    assert world.post_events(session.id, [{"type": "agent.session.input.cancel"}]).status_code == 202
    assert world.fake.mutations() == mutations


def test_message_on_an_idle_session_starts_a_turn(world: World) -> None:
    session = world.client.beta.agents.sessions.create(environment={"type": "openai_hosted"},
                                                       agent=AGENT)
    world.client.beta.agents.sessions.events.create(session.id, events=[message("Write the article.")])
    assert world.client.beta.agents.sessions.retrieve(session.id).status == "in_progress"
    world.clock.sleep(THINK_S)
    assert world.client.beta.agents.sessions.retrieve(session.id).status == "requires_action"


def test_batches_are_all_or_nothing(world: World) -> None:
    session = start(world)
    action = session.required_actions[0]
    mutations = world.fake.mutations()
    response = world.post_events(session.id, [result(action), {**result(action)}])
    assert response.status_code == 400
    assert world.fake.mutations() == mutations
    assert world.client.beta.agents.sessions.retrieve(session.id).status == "requires_action"
    ok = world.post_events(session.id, [{"type": "agent.session.input.cancel"}, message("continue")])
    assert ok.status_code == 202
    turns = list(world.client.beta.agents.sessions.turns.list(session.id, order="asc"))
    assert [t.status for t in turns] == ["cancelled", "in_progress"]


@pytest.mark.parametrize("events, param", [
    ([{"type": "agent.session.input.bogus"}], "events[0].type"),
    ([], "events"),
    ([{"type": "agent.session.input.tool_result", "call_id": "c", "success": True}], "events[0].turn_id"),
    ([{"type": "agent.session.input.message", "input": [{"role": "assistant", "content": []}]}],
     "events[0].input[0].role"),
])
def test_malformed_events_are_400_naming_the_param(world: World, events: list[dict[str, Any]], param: str) -> None:
    session = start(world)
    response = world.post_events(session.id, events)
    assert response.status_code == 400
    assert response.json()["error"]["param"] == param


def test_events_for_an_unknown_session_are_404(world: World) -> None:
    with pytest.raises(openai.NotFoundError):
        world.client.beta.agents.sessions.events.create("sess_nope", events=[message("hi")])


def test_lifecycle_events_are_emitted_for_the_stream_layer(world: World) -> None:
    seen: list[str] = []
    world.fake.subscribe(lambda kind, data: seen.append(kind))
    session = start(world)
    world.client.beta.agents.sessions.events.create(session.id, events=[{"type": "agent.session.input.cancel"}])
    assert seen == [
        "agent.session.created", "agent.session.turn.created", "agent.session.turn.item.added",
        "agent.session.in_progress", "agent.session.turn.item.added", "agent.session.requires_action",
        "agent.session.turn.cancelled", "agent.session.idle",
    ]
