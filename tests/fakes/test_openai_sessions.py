"""The sessions fake through the real openai SDK: session CRUD, auth, beta header, errors, shapes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import openai
import pytest
from _article_world import AGENT
from openai.pagination import SyncCursorPage
from openai.types.beta import AgentSession, AgentSessionDeleted
from openai.types.beta.agent_session import RequiredActionSessionRequiredActionResourceFunctionCall
from openai.types.beta.environment import EnvironmentResourceNone, EnvironmentResourceOpenAIHosted

import durable_harness.fakes.openai_agents as pkg

if TYPE_CHECKING:
    from conftest import OpenAIWorld as World
    from conftest import OpenAIWorlds

KEY = "sk-test-openai"
THINK_S = 1.5
BETA = {"OpenAI-Beta": "agents=v1"}


@pytest.fixture
def world(openai_worlds: OpenAIWorlds, transport: str) -> World:
    """Every test taking ``world`` runs twice: through the gate and over loopback HTTP."""
    return openai_worlds(seed=7, transport=transport)


def create(world: World, **kwargs: Any) -> AgentSession:
    params: dict[str, Any] = {"environment": {"type": "none"}, "agent": AGENT,
                              "input": "Write the article.", "metadata": {"job_id": "job-1", "task_version": "1"}}
    params.update(kwargs)
    return world.client.beta.agents.sessions.create(**params)


# -- front door -------------------------------------------------------------------------------
def test_package_all_is_sorted_and_importable() -> None:
    assert pkg.__all__ == sorted(pkg.__all__)
    for name in pkg.__all__:
        assert getattr(pkg, name) is not None


def test_service_identity(openai_worlds: OpenAIWorlds) -> None:
    fake = openai_worlds().fake
    assert (fake.name, fake.host, fake.root) == ("openai", "openai.dh.test", "/v1")


# -- create / retrieve ------------------------------------------------------------------------
def test_create_with_input_starts_a_root_turn_and_parses_into_sdk_types(world: World) -> None:
    session = create(world)
    assert isinstance(session, AgentSession)
    assert session.status == "in_progress"
    assert isinstance(session.environment, EnvironmentResourceNone)
    assert session.metadata == {"job_id": "job-1", "task_version": "1"}
    assert session.agent.model == "gpt-5"
    assert session.created_at == world.clock.unix()
    turns = list(world.client.beta.agents.sessions.turns.list(session.id))
    assert [t.status for t in turns] == ["in_progress"]


def test_every_session_body_validates_strictly_against_the_sdk_model(world: World) -> None:
    session = create(world)
    world.clock.sleep(THINK_S)
    for path in (f"/agents/sessions/{session.id}",):
        body = world.raw("GET", path).json()
        strict = AgentSession.model_validate(body)
        assert strict.status == "requires_action"
        action = strict.required_actions[0]
        assert isinstance(action, RequiredActionSessionRequiredActionResourceFunctionCall)
        assert isinstance(action.arguments, dict)
    listed = world.raw("GET", "/agents/sessions").json()
    assert [AgentSession.model_validate(s).id for s in listed["data"]] == [session.id]


def test_hosted_environment_without_input_stays_idle(world: World) -> None:
    session = create(world, environment={"type": "openai_hosted"}, input=None)
    assert session.status == "idle"
    assert isinstance(session.environment, EnvironmentResourceOpenAIHosted)
    AgentSession.model_validate(world.raw("GET", f"/agents/sessions/{session.id}").json())
    assert list(world.client.beta.agents.sessions.turns.list(session.id)) == []


def test_retrieve_unknown_session_is_sdk_not_found(world: World) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        world.client.beta.agents.sessions.retrieve("sess_nope")
    assert "sess_nope" in caught.value.message
    assert caught.value.body is not None


@pytest.mark.parametrize("changes, param", [
    ({"environment": None}, "environment"),
    ({"stream": "yes"}, "stream"),
    ({"stream": True, "input": None, "environment": {"type": "openai_hosted"}}, "input"),
    ({"agent": {}}, "agent.model"),
    ({"input": None}, "input"),
    ({"metadata": {f"k{i}": "v" for i in range(17)}}, "metadata"),
    ({"agent": {"model": "gpt-5", "tools": [{"type": "web_search"}]}}, "agent.tools[0].type"),
])
def test_create_validation_errors_name_the_param(world: World, changes: dict[str, Any], param: str) -> None:
    body: dict[str, Any] = {"environment": {"type": "none"}, "agent": AGENT, "input": "hi"}
    for key, value in changes.items():
        if value is None:
            body.pop(key)
        else:
            body[key] = value
    before = world.fake.mutations()
    response = world.raw("POST", "/agents/sessions", json=body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "code", "param"}
    assert error["param"] == param
    assert world.fake.mutations() == before


def test_agent_id_alone_is_enough(world: World) -> None:
    session = world.client.beta.agents.sessions.create(environment={"type": "none"}, agent_id="agent_saved",
                                                       input="hi")
    assert session.agent.id == "agent_saved"
    assert session.agent.model


# -- auth and headers -------------------------------------------------------------------------
def test_wrong_key_is_sdk_authentication_error_with_invalid_api_key_code(world: World) -> None:
    other = world.other_client("sk-wrong", "intruder")
    with pytest.raises(openai.AuthenticationError) as caught:
        other.beta.agents.sessions.list()
    assert caught.value.code == "invalid_api_key"
    assert caught.value.message.startswith("Error code: 401 - ")
    assert "Incorrect API key provided" in caught.value.message
    assert "sk-wrong" not in caught.value.message


def test_missing_key_is_401(world: World) -> None:
    response = world.http.get(world.base + "/agents/sessions", headers=BETA)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_api_key"


def test_revoked_key_is_refused_and_labelled(openai_worlds: OpenAIWorlds) -> None:
    world = openai_worlds()  # the gate's history labels credentials
    assert world.gate is not None
    session = create(world)
    world.fake.revoke_api_key()
    with pytest.raises(openai.AuthenticationError):
        world.client.beta.agents.sessions.retrieve(session.id)
    ops = [e for e in world.gate.history if e.type == "invoke"]
    assert ops[0].data["credential"] == "api-key#1"
    assert ops[-1].data["credential"] == "api-key#1 (revoked)"
    assert all(KEY not in repr(e.to_json()) for e in world.gate.history)


def test_a_new_key_can_be_added_after_a_revocation(world: World) -> None:
    world.fake.revoke_api_key("api-key#1")
    assert world.fake.add_api_key("sk-second") == "api-key#2"
    client = world.other_client("sk-second", "test")
    assert list(client.beta.agents.sessions.list()) == []
    with pytest.raises(ValueError, match="no such key"):
        world.fake.revoke_api_key("api-key#9")


def test_beta_header_is_required_on_agents_routes(world: World) -> None:
    response = world.http.get(world.base + "/agents/sessions", headers={"Authorization": f"Bearer {KEY}"})
    assert response.status_code == 400
    assert "OpenAI-Beta: agents=v1" in response.json()["error"]["message"]


def test_unknown_url_is_404_invalid_url(world: World) -> None:
    response = world.raw("GET", "/agents/nothing-here")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "Invalid URL (GET /v1/agents/nothing-here)"


def test_bad_json_body_is_400(world: World) -> None:
    response = world.raw("POST", "/agents/sessions", content=b"{nope", headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert "could not parse the JSON body" in response.json()["error"]["message"]


# -- list / update / delete -------------------------------------------------------------------
def test_list_filters_by_metadata_and_pages_desc_by_default(world: World) -> None:
    ids = [create(world, metadata={"job_id": f"job-{i % 2}", "n": str(i)}).id for i in range(5)]
    sessions = world.client.beta.agents.sessions
    page = sessions.list(limit=2)
    assert isinstance(page, SyncCursorPage)
    assert [s.id for s in page.data] == ids[::-1][:2]
    assert [s.id for s in page] == ids[::-1]  # auto-pagination across 3 pages
    assert [s.id for s in sessions.list(metadata={"job_id": "job-0"}, order="asc")] == [ids[0], ids[2], ids[4]]
    assert [s.id for s in sessions.list(order="asc", after=ids[1])] == ids[2:]
    assert [s.id for s in sessions.list(metadata={"job_id": "job-0", "n": "2"})] == [ids[2]]


def test_update_replaces_metadata_and_agent_fields(world: World) -> None:
    session = create(world)
    updated = world.client.beta.agents.sessions.update(session.id, metadata={"job_id": "job-1", "x": "y"},
                                                       agent={"model": "gpt-5-mini", "reasoning": {"effort": "low"}})
    assert updated.metadata == {"job_id": "job-1", "x": "y"}
    assert updated.agent.model == "gpt-5-mini"
    assert updated.agent.reasoning.effort == "low"
    cleared = world.client.beta.agents.sessions.update(session.id, metadata={})
    assert cleared.metadata == {}


def test_delete_refuses_a_running_turn_then_works_when_idle(world: World) -> None:
    session = create(world)
    with pytest.raises(openai.BadRequestError, match="cancel it first"):
        world.client.beta.agents.sessions.delete(session.id)
    world.client.beta.agents.sessions.events.create(session.id, events=[{"type": "agent.session.input.cancel"}])
    deleted = world.client.beta.agents.sessions.delete(session.id)
    assert isinstance(deleted, AgentSessionDeleted)
    assert (deleted.id, deleted.deleted, deleted.object) == (session.id, True, "agent.session.deleted")
    with pytest.raises(openai.NotFoundError):
        world.client.beta.agents.sessions.retrieve(session.id)
    assert list(world.client.beta.agents.sessions.list()) == []
    assert world.fake.truth()["sessions"][0]["deleted"] is True


def test_delete_abandons_a_turn_waiting_for_tool_results(world: World) -> None:
    session = create(world)
    world.clock.sleep(THINK_S)
    world.client.beta.agents.sessions.delete(session.id)
    assert world.fake.truth()["sessions"][0]["last_turn_status"] == "cancelled"


# -- mutations and credentials as the gate sees them ------------------------------------------
def test_reads_and_rejections_do_not_count_as_mutations(world: World) -> None:
    before = world.fake.mutations()
    session = create(world)
    after_create = world.fake.mutations()
    assert after_create > before
    world.client.beta.agents.sessions.retrieve(session.id)
    list(world.client.beta.agents.sessions.items.list(session.id))
    with pytest.raises(openai.BadRequestError):
        world.client.beta.agents.sessions.events.create(session.id, events=[
            {"type": "agent.session.input.message", "input": [{"role": "user", "content": [
                {"type": "input_text", "text": "again"}]}]}])
    assert world.fake.mutations() == after_create
    world.clock.sleep(THINK_S)  # the agent thinks: a committed change on a timer
    assert world.fake.mutations() > after_create


def test_gate_records_commits_for_writes_only(openai_worlds: OpenAIWorlds) -> None:
    world = openai_worlds()
    assert world.gate is not None
    session = create(world)
    world.client.beta.agents.sessions.retrieve(session.id)
    completions = [e for e in world.gate.history if e.type in ("ok", "fail", "info")]
    assert [c.data["committed"] for c in completions] == [True, False]
