"""The session's agent through the real openai SDK: ``agent.model`` is required, ``agent.tools`` must
be well-formed function tools (else a 400 naming the field), and the agent calls only the tools its
session declares: without one it ends its turn with a final answer saying so, and issues no call."""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Any

import jsonschema
import openai
import pytest
from _article_world import AGENT, META, SCRIPT, make_world
from _coding_world import make_world as make_coding_world
from openai.types.beta import AgentSession

from durable_harness.fakes.openai_agents import ArticleBrain, CodingBrain

if TYPE_CHECKING:
    from conftest import OpenAIWorld as World
    from conftest import OpenAIWorlds

THINK_S = 1.5
UPLOAD = ArticleBrain.tools()[0]


@pytest.fixture
def world(openai_worlds: OpenAIWorlds, transport: str) -> World:
    """Every test taking ``world`` runs twice: through the gate and over loopback HTTP."""
    return openai_worlds(seed=5, transport=transport)


@pytest.fixture
def gate_world(openai_worlds: OpenAIWorlds) -> World:
    """For the long tables of malformed bodies: the error shape over real HTTP is proved by the
    tests that run both ways."""
    return openai_worlds(seed=5)


def create(world: World, **kwargs: Any) -> AgentSession:
    params: dict[str, Any] = {"environment": {"type": "none"}, "agent": AGENT, "input": "Write the article.",
                              "metadata": META}
    params.update(kwargs)
    return world.client.beta.agents.sessions.create(**params)


def refused(world: World, **kwargs: Any) -> openai.BadRequestError:
    """The SDK's error for a create that must be a 400; nothing may change in the fake."""
    before = world.fake.mutations()
    with pytest.raises(openai.BadRequestError) as caught:
        create(world, **kwargs)
    assert world.fake.mutations() == before
    error = caught.value
    assert isinstance(error.body, dict) and set(error.body) == {"message", "type", "code", "param"}
    assert error.type == "invalid_request_error"
    assert error.message.startswith("Error code: 400 - ")
    return error


def tool(**changes: Any) -> dict[str, Any]:
    """The upload tool with ``changes``; a value of None removes the key."""
    shaped = copy.deepcopy(UPLOAD)
    for key, value in changes.items():
        if value is None:
            shaped.pop(key)
        else:
            shaped[key] = value
    return shaped


# -- agent.model --------------------------------------------------------------------------------
@pytest.mark.parametrize("agent", [None, {"tools": ArticleBrain.tools()}, {"model": None, "instructions": "x"}])
def test_a_create_without_agent_model_is_400_missing_required_parameter(world: World, agent: Any) -> None:
    kwargs: dict[str, Any] = {"agent": agent} if agent is not None else {"agent": openai.omit}
    error = refused(world, **kwargs)
    assert (error.param, error.code) == ("agent.model", "missing_required_parameter")
    assert "Missing required parameter: 'agent.model'." in error.message


@pytest.mark.parametrize("agent, param, code", [
    ({"model": ""}, "agent.model", "invalid_value"),
    ({"model": 5}, "agent.model", "invalid_type"),
    ({"model": "gpt-5", "instructions": ["be careful"]}, "agent.instructions", "invalid_type"),
    ({"model": "gpt-5", "temperature": 0}, "agent.temperature", "unknown_parameter"),
    ({"model": "gpt-5", "tools": {"wp_upload_media": {}}}, "agent.tools", "invalid_type"),
])
def test_a_malformed_agent_is_400_naming_the_field(gate_world: World, agent: dict[str, Any], param: str,
                                                    code: str) -> None:
    error = refused(gate_world, agent=agent)
    assert (error.param, error.code) == (param, code)


# -- agent.tools --------------------------------------------------------------------------------
@pytest.mark.parametrize("bad, param, code", [
    ("not a tool", "agent.tools[1]", "invalid_type"),
    (tool(type=None), "agent.tools[1].type", "missing_required_parameter"),
    ({"type": "web_search"}, "agent.tools[1].type", "invalid_value"),
    (tool(name=None), "agent.tools[1].name", "missing_required_parameter"),
    (tool(name=""), "agent.tools[1].name", "invalid_value"),
    (tool(name="wp upload media"), "agent.tools[1].name", "invalid_value"),
    (tool(name="x" * 65), "agent.tools[1].name", "string_above_max_length"),
    (tool(description=None), "agent.tools[1].description", "missing_required_parameter"),
    (tool(description={"text": "Upload."}), "agent.tools[1].description", "invalid_type"),
    (tool(parameters=None), "agent.tools[1].parameters", "missing_required_parameter"),
    (tool(parameters="{}"), "agent.tools[1].parameters", "invalid_type"),
    (tool(parameters={"type": "string"}), "agent.tools[1].parameters", "invalid_function_parameters"),
    (tool(parameters={"properties": {"filename": {"type": "string"}}}), "agent.tools[1].parameters",
     "invalid_function_parameters"),
    (tool(parameters={"type": "object", "properties": ["filename"]}), "agent.tools[1].parameters",
     "invalid_function_parameters"),
    (tool(parameters={"type": "object", "required": "filename"}), "agent.tools[1].parameters",
     "invalid_function_parameters"),
    (tool(strict=True), "agent.tools[1].strict", "unknown_parameter"),
    (tool(defer_loading="no"), "agent.tools[1].defer_loading", "invalid_type"),
])
def test_a_tool_that_is_not_a_well_formed_function_tool_is_400(gate_world: World, bad: Any, param: str,
                                                                code: str) -> None:
    error = refused(gate_world, agent={"model": "gpt-5", "tools": [ArticleBrain.tools()[1], bad]})
    assert (error.param, error.code) == (param, code)
    assert param in error.message


def test_well_formed_tools_come_back_on_the_session_as_declared(world: World) -> None:
    session = create(world)
    declared = [t.model_dump(by_alias=True, exclude_none=True) for t in session.agent.tools]
    assert [t["name"] for t in declared] == [t["name"] for t in AGENT["tools"]]
    assert declared[0]["parameters"] == UPLOAD["parameters"]
    assert declared[0]["description"] == UPLOAD["description"]


def test_tools_null_declares_none_and_an_update_can_declare_them(world: World) -> None:
    session = create(world, agent={"model": "gpt-5", "tools": None})
    assert session.agent.tools == []
    updated = world.client.beta.agents.sessions.update(session.id, agent={"tools": ArticleBrain.tools()})
    names = [t.name for t in updated.agent.tools]  # type: ignore[union-attr]
    assert names == [t["name"] for t in ArticleBrain.tools()]
    with pytest.raises(openai.BadRequestError) as caught:
        world.client.beta.agents.sessions.update(session.id, agent={"tools": [tool(parameters=None)]})
    assert caught.value.param == "agent.tools[0].parameters"


# -- the agent calls only declared tools --------------------------------------------------------
def final_answer(world: World, session_id: str) -> str:
    items = world.client.beta.agents.sessions.items.list(session_id, limit=1)
    message = items.data[0]
    assert message.type == "message" and message.phase == "final_answer"
    return message.output_text


def test_an_agent_without_tools_ends_its_turn_saying_it_lacks_the_tool(world: World) -> None:
    session = create(world, agent={"model": "gpt-5"})
    world.clock.sleep(THINK_S)
    session = world.client.beta.agents.sessions.retrieve(session.id)
    assert (session.status, session.required_actions) == ("idle", [])
    text = final_answer(world, session.id)
    assert "without the tool 'wp_upload_media'" in text and "its function tools: none" in text
    turns = list(world.client.beta.agents.sessions.turns.list(session.id))
    assert [t.status for t in turns] == ["completed"]
    items = list(world.client.beta.agents.sessions.items.list(session.id, order="asc"))
    assert all(i.type != "function_call" for i in items)
    assert world.fake.truth()["tool_calls"] == []


def test_the_agent_calls_declared_tools_and_stops_at_the_first_it_lacks(openai_worlds: OpenAIWorlds) -> None:
    article = make_world(openai_worlds)
    partial = {"model": "gpt-5", "tools": [t for t in ArticleBrain.tools() if t["name"] != "wp_set_seo"]}
    session_id = article.client.beta.agents.sessions.create(environment={"type": "none"}, agent=partial,
                                                            input="Write the article.", metadata=META).id
    session = article.drive(session_id)
    assert session.status == "idle"
    assert [a.name for a in article.calls] == SCRIPT[:5]  # three images, the draft, its update
    assert "without the tool 'wp_set_seo'" in article.last_answer(session_id)
    assert article.roles() == ["image:1", "image:2", "image:3", "article", "article:update"]
    # Declared afterwards, the tool is called on the next turn: nothing done is redone.
    article.client.beta.agents.sessions.update(session_id, agent={"tools": ArticleBrain.tools()})
    article.say(session_id, "continue")
    article.drive(session_id)
    assert [a.name for a in article.calls] == SCRIPT
    assert article.roles()[5:] == ["article:seo", "article:read"]


def test_the_coding_agent_without_deliver_result_does_the_work_but_delivers_nothing() -> None:
    coding = make_coding_world()
    session = coding.sessions.create(environment={"type": "openai_hosted"}, agent={"model": "gpt-5"},
                                     input="Implement the module.", metadata={"job_id": "job-c", "task_version": "1"})
    session = coding.drive(session.id)
    assert session.status == "idle" and coding.answered == []
    assert coding.commands(session.id), "the sandbox work does not need a declared tool"
    assert "without the tool 'deliver_result'" in coding.finals(session.id)[-1]
    assert coding.fake.truth()["tool_calls"] == []


# -- the brains' tool definitions fit what the brains send ---------------------------------------
def test_every_article_call_fits_the_declared_parameters(openai_worlds: OpenAIWorlds) -> None:
    article = make_world(openai_worlds)
    article.drive(article.start())
    schemas = {t["name"]: t["parameters"] for t in ArticleBrain.tools()}
    assert [a.name for a in article.calls] == SCRIPT
    for action in article.calls:
        jsonschema.validate(action.arguments, schemas[action.name])


def test_the_coding_call_fits_the_declared_parameters() -> None:
    coding = make_coding_world()
    session = coding.create()
    coding.drive(session.id)
    (schema,) = [t["parameters"] for t in CodingBrain.tools()]
    assert [a.name for a in coding.answered] == ["deliver_result"]
    jsonschema.validate(json.loads(json.dumps(coding.answered[0].arguments)), schema)
