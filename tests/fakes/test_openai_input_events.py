"""Malformed input events through the real openai SDK: every one is a 400 with the platform's error
shape and a ``param`` naming the field (``events[0].call_id``), nothing of the batch is applied,
and the well-formed shapes the contract documents are accepted."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import openai
import pytest
from _article_world import AGENT, META
from openai.types.beta import AgentSession

if TYPE_CHECKING:
    from conftest import OpenAIWorld as World
    from conftest import OpenAIWorlds

THINK_S = 1.5
TOOL_RESULT = "agent.session.input.tool_result"
MESSAGE = "agent.session.input.message"
CONTINUE = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "continue"}]}]


@pytest.fixture
def world(openai_worlds: OpenAIWorlds, transport: str) -> World:
    """Every test runs twice: through the gate and over loopback HTTP."""
    return openai_worlds(seed=9, transport=transport)


@pytest.fixture
def gate_world(openai_worlds: OpenAIWorlds) -> World:
    """For the long tables of malformed bodies: the error shape over real HTTP is proved by the
    tests that run both ways."""
    return openai_worlds(seed=9)


def waiting(world: World) -> AgentSession:
    """A session whose agent waits for the result of its first call."""
    session = world.client.beta.agents.sessions.create(environment={"type": "none"}, agent=AGENT,
                                                       input="Write the article.", metadata=META)
    world.clock.sleep(THINK_S)
    session = world.client.beta.agents.sessions.retrieve(session.id)
    assert session.status == "requires_action"
    return session


def answer(action: Any, **changes: Any) -> dict[str, Any]:
    """A well-formed tool result for ``action`` with ``changes``; a value of None removes the key."""
    event: dict[str, Any] = {"type": TOOL_RESULT, "turn_id": action.turn_id, "call_id": action.call_id,
                             "success": True, "output": json.dumps({"media_id": 7, "source_url": "https://x/7.png"})}
    for key, value in changes.items():
        if value is None:
            event.pop(key)
        else:
            event[key] = value
    return event


def refused(world: World, session: AgentSession, events: list[Any]) -> openai.BadRequestError:
    before = world.fake.mutations()
    with pytest.raises(openai.BadRequestError) as caught:
        world.client.beta.agents.sessions.events.create(session.id, events=events)
    assert world.fake.mutations() == before, "a refused batch changes nothing"
    error = caught.value
    assert isinstance(error.body, dict) and set(error.body) == {"message", "type", "code", "param"}
    assert error.type == "invalid_request_error"
    return error


# -- tool results -------------------------------------------------------------------------------
@pytest.mark.parametrize("changes, param, code", [
    ({"call_id": None}, "events[0].call_id", "missing_required_parameter"),
    ({"turn_id": None}, "events[0].turn_id", "missing_required_parameter"),
    ({"call_id": 12}, "events[0].call_id", "invalid_type"),
    ({"turn_id": ""}, "events[0].turn_id", "invalid_value"),
    ({"success": None}, "events[0].success", "missing_required_parameter"),
    ({"success": "true"}, "events[0].success", "invalid_type"),
    ({"output": {"media_id": 7}}, "events[0].output", "invalid_type"),
    ({"output": 7}, "events[0].output", "invalid_type"),
    ({"output": [{"type": "output_text", "text": "{}"}]}, "events[0].output[0].type", "invalid_value"),
    ({"output": [{"type": "input_text"}]}, "events[0].output[0].text", "missing_required_parameter"),
    ({"output": ["{}"]}, "events[0].output[0]", "invalid_type"),
    ({"success": False, "output": None, "error": {"reason": "403"}}, "events[0].error", "invalid_type"),
    ({"result": "{}"}, "events[0].result", "unknown_parameter"),
])
def test_a_malformed_tool_result_is_400_naming_the_field(gate_world: World, changes: dict[str, Any], param: str,
                                                         code: str) -> None:
    session = waiting(gate_world)
    error = refused(gate_world, session, [answer(session.required_actions[0], **changes)])
    assert (error.param, error.code) == (param, code)
    assert param in error.message


def test_a_missing_call_id_says_where_to_find_it(world: World) -> None:
    session = waiting(world)
    error = refused(world, session, [answer(session.required_actions[0], call_id=None)])
    assert "required_actions[]" in error.message


def test_an_output_object_must_be_sent_as_a_json_string(world: World) -> None:
    session = waiting(world)
    action = session.required_actions[0]
    error = refused(world, session, [answer(action, output={"media_id": 7})])
    assert "JSON-encode" in error.message and "an object" in error.message
    world.client.beta.agents.sessions.events.create(session.id, events=[answer(action)])
    assert world.fake.truth()["tool_calls"][0]["answered"] is True


def test_output_parts_and_a_failure_with_an_error_are_accepted(world: World) -> None:
    session = waiting(world)
    parts = [{"type": "input_text", "text": json.dumps({"media_id": 7, "source_url": "https://x/7.png"})}]
    world.client.beta.agents.sessions.events.create(session.id, events=[answer(session.required_actions[0],
                                                                               output=parts)])
    world.clock.sleep(THINK_S)
    following = world.client.beta.agents.sessions.retrieve(session.id).required_actions[0]
    failure = answer(following, success=False, output=None, error="HTTP 403 from the site's firewall")
    world.client.beta.agents.sessions.events.create(session.id, events=[failure])
    assert [c["success"] for c in world.fake.truth()["tool_calls"]] == [True, False]


# -- messages, cancel, the envelope --------------------------------------------------------------
@pytest.mark.parametrize("event, param, code", [
    ({"type": MESSAGE, "input": "continue"}, "events[0].input", "invalid_type"),
    ({"type": MESSAGE}, "events[0].input", "missing_required_parameter"),
    ({"type": MESSAGE, "input": []}, "events[0].input", "empty_array"),
    ({"type": MESSAGE, "input": ["continue"]}, "events[0].input[0]", "invalid_type"),
    ({"type": MESSAGE, "input": [{"role": "user", "content": "continue"}]}, "events[0].input[0].content",
     "invalid_type"),
    ({"type": MESSAGE, "input": [{"role": "user"}]}, "events[0].input[0].content", "missing_required_parameter"),
    ({"type": MESSAGE, "input": [{"content": CONTINUE[0]["content"]}]}, "events[0].input[0].role",
     "missing_required_parameter"),
    ({"type": MESSAGE, "input": [{"role": "system", "content": CONTINUE[0]["content"]}]},
     "events[0].input[0].role", "invalid_value"),
    ({"type": MESSAGE, "input": [{"role": "user", "content": [{"type": "text", "text": "continue"}]}]},
     "events[0].input[0].content[0].type", "invalid_value"),
    ({"type": MESSAGE, "input": CONTINUE, "metadata": {}}, "events[0].metadata", "unknown_parameter"),
    ({"type": "agent.session.input.cancel", "turn_id": "turn_1"}, "events[0].turn_id", "unknown_parameter"),
    ({"type": "agent.session.input.function_call_output"}, "events[0].type", "invalid_value"),
    ({"input": CONTINUE}, "events[0].type", "missing_required_parameter"),
    ({"type": "agent.session.input.mcp_approval_request_result", "response": {}}, "events[0].request_id",
     "missing_required_parameter"),
    ("cancel", "events[0]", "invalid_type"),
])
def test_a_malformed_event_is_400_naming_the_field(gate_world: World, event: Any, param: str, code: str) -> None:
    world = gate_world
    session = waiting(world)
    world.client.beta.agents.sessions.events.create(session.id, events=[{"type": "agent.session.input.cancel"}])
    idle = world.client.beta.agents.sessions.retrieve(session.id)
    error = refused(world, idle, [event])
    assert (error.param, error.code) == (param, code)


def test_events_must_be_a_non_empty_array(world: World) -> None:
    session = waiting(world)
    assert refused(world, session, []).code == "empty_array"
    response = world.raw("POST", f"/agents/sessions/{session.id}/events", json={"events": {"type": MESSAGE}})
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "events" and response.json()["error"]["code"] == "invalid_type"


def test_one_malformed_event_refuses_the_whole_batch(world: World) -> None:
    session = waiting(world)
    action = session.required_actions[0]
    error = refused(world, session, [answer(action), {"type": "agent.session.input.cancel", "reason": "x"}])
    assert error.param == "events[1].reason"
    assert world.client.beta.agents.sessions.retrieve(session.id).required_actions[0].call_id == action.call_id
    assert world.fake.truth()["tool_calls"][0]["answered"] is False


def test_the_documented_message_and_cancel_shapes_are_accepted(world: World) -> None:
    session = waiting(world)
    world.client.beta.agents.sessions.events.create(session.id, events=[
        {"type": "agent.session.input.cancel"},
        {"type": MESSAGE, "input": CONTINUE}])
    turns = list(world.client.beta.agents.sessions.turns.list(session.id, order="asc"))
    assert [t.status for t in turns] == ["cancelled", "in_progress"]
