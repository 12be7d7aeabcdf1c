"""The environments API through the real openai SDK: prewarmed environments (create with
Idempotency-Key, retrieve, list), inline files and their TokenPage, sessions attached to hosted
environments, environment events, and the effects of replace, disconnect/reconnect and expiry."""

from __future__ import annotations

import base64
from typing import Any

import openai
import pytest
from _coding_world import WINDOW_S, CodingWorld, coding_job, inline, make_world
from openai.pagination import SyncCursorPage, SyncTokenPage
from openai.types.beta import (
    AgentSession,
    AgentSessionEnvironmentConnectedEvent,
    AgentSessionEnvironmentDisconnectedEvent,
    AgentSessionEnvironmentExpiredEvent,
    AgentSessionEnvironmentPendingEvent,
    AgentSessionEnvironmentReadyEvent,
    AgentSessionEnvironmentResetEvent,
)
from openai.types.beta.agent_session import RequiredActionSessionRequiredActionResourceEnvironmentConnection
from openai.types.beta.agents import EnvironmentInfo
from openai.types.beta.agents.environments import EnvironmentFile
from openai.types.beta.environment import EnvironmentResourceOpenAIHosted
from openai.types.beta.hosted_environment_file import HostedEnvironmentFileResourceInline

EVENT_MODELS: dict[str, Any] = {
    "pending": AgentSessionEnvironmentPendingEvent, "ready": AgentSessionEnvironmentReadyEvent,
    "connected": AgentSessionEnvironmentConnectedEvent, "disconnected": AgentSessionEnvironmentDisconnectedEvent,
    "expired": AgentSessionEnvironmentExpiredEvent, "reset": AgentSessionEnvironmentResetEvent,
}


@pytest.fixture
def world() -> CodingWorld:
    return make_world()


def hosted_session(world: CodingWorld, **environment: Any) -> AgentSession:
    """A hosted session without input: idle, its environment connected, no turn."""
    return world.create(environment={"type": "openai_hosted", **environment}, text=None)


# -- prewarmed environments --------------------------------------------------------------------
def test_create_retrieve_and_list_parse_into_sdk_types(world: CodingWorld) -> None:
    envs = world.client.beta.agents.environments
    created = envs.create(environment={"type": "openai_hosted", "files": [inline("/workspace/in.txt", b"hello")]},
                          vault_ids=["vault_1"])
    assert isinstance(created, EnvironmentInfo)
    assert (created.object, created.type, created.status) == ("agent.environment", "openai_hosted", "ready")
    assert len(created.files) == 1 and isinstance(created.files[0], HostedEnvironmentFileResourceInline)
    assert (created.files[0].path, created.files[0].size_bytes) == ("/workspace/in.txt", 5)
    assert envs.retrieve(created.id) == created
    EnvironmentInfo.model_validate(world.raw("GET", f"/agents/environments/{created.id}").json())
    second = envs.create(environment={"type": "openai_hosted"})
    page = envs.list(limit=1, order="asc")
    assert isinstance(page, SyncCursorPage) and page.has_more
    assert [e.id for e in page] == [created.id, second.id]
    assert [e.id for e in envs.list(type="openai_hosted")] == [second.id, created.id]  # default order desc
    assert world.fake.truth()["environments"][0] == {"id": created.id, "prewarmed": True, "session_id": None,
                                                     "created_at": world.clock.unix(), "vault_ids": ["vault_1"]}


def test_idempotency_key_dedupes_creation(world: CodingWorld) -> None:
    envs = world.client.beta.agents.environments
    first = envs.create(environment={"type": "openai_hosted"}, idempotency_key="k-1")
    again = envs.create(environment={"type": "openai_hosted"}, idempotency_key="k-1")
    assert again.id == first.id and len(world.executor.environment_ids()) == 1
    with pytest.raises(openai.BadRequestError) as caught:
        envs.create(environment={"type": "openai_hosted", "files": [inline("/workspace/x", b"")]},
                    idempotency_key="k-1")
    assert caught.value.code == "idempotency_key_reused"
    assert envs.create(environment={"type": "openai_hosted"}).id != first.id  # no key, no dedupe


@pytest.mark.parametrize("body, param", [
    ({"environment": {"type": "self_hosted"}}, "environment"),
    ({"environment": {"type": "openai_hosted", "environment_id": "env_x"}}, "environment.environment_id"),
    ({"environment": {"type": "openai_hosted"}, "vault_ids": [f"v{n}" for n in range(11)]}, "vault_ids"),
    ({"environment": {"type": "openai_hosted", "files": [{"type": "file_id", "file_id": "f", "path": "/workspace/a"}]}},
     "environment.files[0].type"),
    ({"environment": {"type": "openai_hosted", "files": [inline("/etc/passwd", b"")]}}, "environment.files[0].path"),
    ({"environment": {"type": "openai_hosted", "files": [{"type": "inline", "path": "/workspace/a",
                                                           "data": "%%%"}]}}, "environment.files[0].data"),
    ({"environment": {"type": "openai_hosted"}, "extra": 1}, "extra"),
])
def test_create_validates_eagerly_and_names_the_param(world: CodingWorld, body: dict[str, Any], param: str) -> None:
    response = world.raw("POST", "/agents/environments", json=body)
    assert response.status_code == 400 and response.json()["error"]["param"] == param
    assert world.executor.environment_ids() == []


def test_unknown_environments_are_404(world: CodingWorld) -> None:
    envs = world.client.beta.agents.environments
    with pytest.raises(openai.NotFoundError, match="env_nope"):
        envs.retrieve("env_nope")
    with pytest.raises(openai.NotFoundError):
        envs.files.list("env_nope")
    with pytest.raises(openai.NotFoundError):
        envs.files.create("env_nope", type="inline", data="", path="/workspace/a")


def test_files_need_a_connected_environment(world: CodingWorld) -> None:
    env = world.client.beta.agents.environments.create(environment={"type": "openai_hosted"})
    with pytest.raises(openai.ConflictError) as caught:
        world.client.beta.agents.environments.files.create(env.id, type="inline", data="", path="/workspace/a")
    assert caught.value.code == "environment_not_connected"
    assert f"environment {env.id!r} is ready, not connected; attach it to a session first" in caught.value.message
    with pytest.raises(openai.ConflictError):
        world.client.beta.agents.environments.files.list(env.id)


# -- sessions on hosted environments -------------------------------------------------------------
def test_a_hosted_session_gets_a_connected_sandbox_and_environment_events(world: CodingWorld) -> None:
    session = hosted_session(world, files=[inline("/workspace/seed.txt", b"abc")])
    assert isinstance(session.environment, EnvironmentResourceOpenAIHosted)
    env_id = session.environment.id
    assert [(f.path, f.size_bytes) for f in session.environment.files] == [("/workspace/seed.txt", 3)]
    assert world.client.beta.agents.environments.retrieve(env_id).status == "connected"
    assert world.fake.environment_id(session.id) == env_id
    statuses = [(t, d["environment"]["status"]) for t, d in world.of_type("agent.session.environment.")]
    assert statuses == [("agent.session.environment.pending", "pending"),
                        ("agent.session.environment.ready", "ready"),
                        ("agent.session.environment.connected", "connected")]
    for type_, data in world.of_type("agent.session.environment."):
        assert data["session_id"] == session.id and data["turn_id"] is None
        EVENT_MODELS[type_.rsplit(".", 1)[1]].model_validate({"type": type_, "event_id": "evt_x", **data})
    files = list(world.client.beta.agents.environments.files.list(env_id))
    assert [(f.path, f.size_bytes) for f in files] == [("/workspace/seed.txt", 3)]


def test_a_prewarmed_environment_is_attached_once(world: CodingWorld) -> None:
    envs = world.client.beta.agents.environments
    env = envs.create(environment={"type": "openai_hosted", "files": [inline("/workspace/a.txt", b"a")]})
    session = hosted_session(world, environment_id=env.id)
    assert session.environment.id == env.id  # type: ignore[union-attr]
    assert envs.retrieve(env.id).status == "connected"
    assert [f.path for f in envs.files.list(env.id)] == ["/workspace/a.txt"]
    assert world.fake.truth()["environments"][0]["session_id"] == session.id
    with pytest.raises(openai.ConflictError) as caught:
        hosted_session(world, environment_id=env.id)
    assert caught.value.code == "environment_unavailable" and session.id in caught.value.message
    with pytest.raises(openai.BadRequestError) as missing:
        hosted_session(world, environment_id="env_nope")
    assert missing.value.code == "environment_not_found"
    with pytest.raises(openai.BadRequestError, match="keeps its own files"):
        hosted_session(world, environment_id=env.id, files=[inline("/workspace/b", b"")])


def test_self_hosted_sessions_have_no_sandbox(world: CodingWorld) -> None:
    session = world.create(environment={"type": "self_hosted", "workspace_directory": "/w"}, text=None)
    assert session.environment.type == "self_hosted"
    assert world.executor.environment_ids() == []
    with pytest.raises(openai.NotFoundError):
        world.client.beta.agents.environments.retrieve(session.environment.id)  # type: ignore[union-attr]


# -- files and their TokenPage -------------------------------------------------------------------
def upload_five(world: CodingWorld) -> str:
    env_id = hosted_session(world).environment.id  # type: ignore[union-attr]
    for path in ["/workspace/b.txt", "/workspace/a/z.txt", "/workspace/a/b.txt", "/workspace/c/d/e.txt",
                 "/workspace/B.txt"]:
        made = world.client.beta.agents.environments.files.create(
            env_id, type="inline", path=path, data=base64.b64encode(path.encode()).decode())
        assert isinstance(made, EnvironmentFile) and made.size_bytes == len(path) and made.environment_id == env_id
    return env_id


def test_files_page_by_token_in_both_orders(world: CodingWorld) -> None:
    env_id = upload_five(world)
    files = world.client.beta.agents.environments.files
    ascending = ["/workspace/B.txt", "/workspace/a/b.txt", "/workspace/a/z.txt", "/workspace/b.txt",
                 "/workspace/c/d/e.txt"]
    page = files.list(env_id, limit=2, order="asc")
    assert isinstance(page, SyncTokenPage) and page.has_more and page.next
    before = len(world.gate.history)
    assert [f.path for f in page] == ascending
    assert sum(1 for e in list(world.gate.history)[before:] if e.type == "invoke") == 2
    assert [f.path for f in files.list(env_id, limit=2)] == ascending[::-1]
    assert [f.path for f in files.list(env_id, path="/workspace/a", order="asc")] == ascending[1:3]
    last = files.list(env_id, limit=5)
    assert (last.has_more, last.next) == (False, None)


def test_a_page_token_is_bound_to_its_query(world: CodingWorld) -> None:
    env_id = upload_five(world)
    token = world.client.beta.agents.environments.files.list(env_id, limit=2).next
    for params, needle in [({"limit": 3, "page": token}, "keep the same path, order and limit"),
                           ({"limit": 2, "order": "asc", "page": token}, "keep the same"),
                           ({"limit": 2, "page": "garbage"}, "is not a page token"),
                           ({"path": "/etc"}, "inside /workspace")]:
        response = world.raw("GET", f"/agents/environments/{env_id}/files", params=params)
        assert response.status_code == 400 and needle in response.json()["error"]["message"]


def test_paging_continues_after_a_file_vanished(world: CodingWorld) -> None:
    env_id = upload_five(world)
    first = world.client.beta.agents.environments.files.list(env_id, limit=2, order="asc")
    world.executor.replace(env_id)
    assert world.client.beta.agents.environments.files.list(env_id, limit=2, order="asc", page=first.next).data == []


# -- replace, disconnect, reconnect, expiry ------------------------------------------------------
def test_replace_empties_the_files_and_reports_a_reset(world: CodingWorld) -> None:
    env_id = upload_five(world)
    session_id = world.sessions.list().data[0].id
    world.events.clear()
    assert world.executor.replace(env_id) == 1
    assert list(world.client.beta.agents.environments.files.list(env_id)) == []
    assert [t.rsplit(".", 1)[1] for t, _ in world.of_type("agent.session.environment.")] == [
        "pending", "reset", "connected"]
    reset = AgentSessionEnvironmentResetEvent.model_validate(
        {"type": "agent.session.environment.reset", "event_id": "e", **world.events[1][1]})
    assert (reset.environment_id, reset.reset_count, reset.session_id) == (env_id, 1, session_id)
    assert world.sessions.retrieve(session_id).status == "idle"


def test_disconnect_requires_environment_connection_until_reconnect(world: CodingWorld) -> None:
    session = hosted_session(world)
    env_id = session.environment.id  # type: ignore[union-attr]
    world.executor.disconnect(env_id)
    waiting = world.sessions.retrieve(session.id)
    assert waiting.status == "requires_action"
    action = waiting.required_actions[0]
    assert isinstance(action, RequiredActionSessionRequiredActionResourceEnvironmentConnection)
    assert action.environment_id == env_id
    AgentSession.model_validate(world.raw("GET", f"/agents/sessions/{session.id}").json())
    assert world.client.beta.agents.environments.retrieve(env_id).status == "disconnected"
    with pytest.raises(openai.ConflictError, match="reconnect it inside its reconnect window"):
        world.client.beta.agents.environments.files.list(env_id)
    assert ("agent.session.requires_action", session.id) in [(t, d.get("session_id")) for t, d in world.events]
    world.clock.sleep(WINDOW_S - 1)
    world.executor.reconnect(env_id)
    back = world.sessions.retrieve(session.id)
    assert (back.status, back.required_actions) == ("idle", [])


def test_past_the_window_the_environment_expires(world: CodingWorld) -> None:
    session = hosted_session(world)
    env_id = session.environment.id  # type: ignore[union-attr]
    world.executor.disconnect(env_id)
    world.clock.sleep(WINDOW_S)
    assert world.client.beta.agents.environments.retrieve(env_id).status == "expired"
    expired = [d for t, d in world.events if t == "agent.session.environment.expired"]
    assert expired == [{"session_id": session.id, "turn_id": None,
                        "environment": {"id": env_id, "type": "openai_hosted", "status": "expired"}}]
    idle = world.sessions.retrieve(session.id)
    assert (idle.status, idle.required_actions) == ("idle", [])  # no turn to fail yet...
    world.say(session.id, "Implement the module.")
    failed = world.drive(session.id)
    assert failed.status == "failed" and "has expired" in str(failed.error)
    turn = world.sessions.turns.list(session.id).data[0]
    assert turn.status == "failed" and turn.error is not None and turn.error.code == "sandbox_error"


def test_a_prewarmed_environment_reports_without_a_session(world: CodingWorld) -> None:
    env = world.client.beta.agents.environments.create(environment={"type": "openai_hosted"})
    world.executor.expire(env.id)
    assert [(t, d) for t, d in world.events if t.startswith("agent.environment.")] == [
        ("agent.environment.ready", {"environment": {"id": env.id, "type": "openai_hosted", "status": "ready"}}),
        ("agent.environment.expired", {"environment": {"id": env.id, "type": "openai_hosted", "status": "expired"}})]


def test_environment_uploads_count_as_mutations_for_the_gate(world: CodingWorld) -> None:
    env_id = hosted_session(world).environment.id  # type: ignore[union-attr]
    before = world.fake.mutations()
    world.client.beta.agents.environments.files.create(env_id, type="inline", data="", path="/workspace/a")
    assert world.fake.mutations() > before
    assert coding_job()["workload"] == "coding"
