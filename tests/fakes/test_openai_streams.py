"""The live event stream through the real openai SDK: typed events, SSE framing, keepalives and the
bounded idle close on the virtual clock, the ``sessions.stream`` helper with tool handlers,
``sessions.create(stream=True)``, cuts by the gate's ``drop_stream`` fault, and no replay."""

from __future__ import annotations

import json
import types
from typing import TYPE_CHECKING, Any

import openai
import pydantic
import pytest
from _article_world import AGENT, MAX_EVENTS, bounded, handlers
from openai.types.beta import (
    AgentSessionCreatedEvent,
    AgentSessionEnvironmentResetEvent,
    AgentSessionEvent,
    AgentSessionIdleEvent,
    AgentSessionInProgressEvent,
    AgentSessionRequiresActionEvent,
    AgentSessionTurnCancelledEvent,
    AgentSessionTurnCompletedEvent,
    AgentSessionTurnCreatedEvent,
    AgentSessionTurnItemAddedEvent,
    AgentSessionTurnItemDoneEvent,
)

from durable_harness.wire import Request
from durable_harness.fakes.openai_agents._sse import KEEPALIVE_S
from durable_harness.harness.faults import Trigger, get_fault_kind

if TYPE_CHECKING:
    from conftest import OpenAIWorld as World
    from conftest import OpenAIWorlds

THINK_S = 1.5
IDLE_CLOSE_S = 300.0
EVENTS = pydantic.TypeAdapter(AgentSessionEvent)


def busy_session(world: World, **kwargs: Any) -> str:
    """A session whose agent is thinking (its first call comes THINK_S later)."""
    return world.client.beta.agents.sessions.create(
        environment={"type": "none"}, agent=AGENT, input="Write the article.",
        metadata={"job_id": "job-1", "task_version": "1"}, **kwargs).id


def idle_session(world: World) -> str:
    return world.client.beta.agents.sessions.create(environment={"type": "openai_hosted"}, agent=AGENT,
                                                    metadata={"job_id": "job-1", "task_version": "1"}).id


@pytest.fixture
def world(openai_worlds: OpenAIWorlds) -> World:
    return openai_worlds(seed=5)


# -- events.stream ------------------------------------------------------------------------------
def test_events_stream_yields_typed_events_then_ends_after_the_idle_close(openai_worlds: OpenAIWorlds,
                                                                          transport: str) -> None:
    world = openai_worlds(seed=5, transport=transport)
    session_id = busy_session(world)
    events = bounded(world.client.beta.agents.sessions.events.stream(session_id))
    assert [type(e) for e in events] == [AgentSessionInProgressEvent, AgentSessionTurnItemAddedEvent,
                                         AgentSessionTurnItemDoneEvent, AgentSessionRequiresActionEvent]
    state, added, done, action = events
    assert state.session.id == session_id and state.session.status == "in_progress"  # the state on subscribe
    assert added.item.type == "function_call" and added.output_index == 0 == done.output_index
    assert added.session_id == session_id and added.turn_id == added.item.turn_id
    assert action.session.required_actions[0].call_id == added.item.call_id
    assert len({e.event_id for e in events}) == len(events)
    assert all(isinstance(e.obfuscation, str) and e.obfuscation for e in events)
    assert world.clock.now() == pytest.approx(THINK_S + IDLE_CLOSE_S)  # the stream made the agent think
    assert world.fake.open_streams() == 0


def test_include_obfuscation_false_omits_the_padding(world: World) -> None:
    events = bounded(world.client.beta.agents.sessions.events.stream(busy_session(world), include_obfuscation=False))
    assert events and all(e.obfuscation is None for e in events)
    assert world.get(f"/agents/sessions/{busy_session(world)}/events",
                     include_obfuscation="maybe").json()["error"]["param"] == "include_obfuscation"


def frames(world: World, session_id: str, **params: str) -> list[str]:
    with world.http.stream("GET", f"{world.base}/agents/sessions/{session_id}/events", params=params,
                           headers={"Authorization": "Bearer sk-test-openai", "OpenAI-Beta": "agents=v1",
                                    "Accept": "text/event-stream"}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        return response.read().decode().split("\n\n")


def test_sse_framing_keepalives_and_strict_payloads(openai_worlds: OpenAIWorlds, transport: str) -> None:
    world = openai_worlds(seed=5, transport=transport)
    blocks = frames(world, busy_session(world))
    assert blocks[-1] == ""  # every frame ends with a blank line, the body with a complete frame
    events, keepalives = [], 0
    for block in blocks[:-1]:
        if block == ": keepalive":
            keepalives += 1
            continue
        event_line, data_line = block.split("\n")
        assert event_line.startswith("event: ") and data_line.startswith("data: ")
        data = json.loads(data_line[len("data: "):])
        assert data["type"] == event_line[len("event: "):]
        EVENTS.validate_python(data)  # every required field of the SDK's model is there
        events.append(data)
    assert [e["type"] for e in events][-1] == "agent.session.requires_action"
    # Silence from the last event (t=1.5) to the idle close (t=301.5): one comment per 15 s, none at the close.
    assert keepalives == int(IDLE_CLOSE_S / KEEPALIVE_S) - 1


def test_an_idle_session_stream_ends_after_idle_close_s(openai_worlds: OpenAIWorlds) -> None:
    world = openai_worlds(seed=5, idle_close_s=60)
    events = bounded(world.client.beta.agents.sessions.events.stream(idle_session(world)))
    assert [type(e) for e in events] == [AgentSessionIdleEvent]
    assert world.clock.now() == 60
    with pytest.raises(ValueError, match="idle_close_s=0"):
        openai_worlds(idle_close_s=0)


def test_deleting_the_session_ends_its_stream_at_once(world: World) -> None:
    session_id = busy_session(world)
    world.clock.sleep(THINK_S)
    stream = world.client.beta.agents.sessions.events.stream(session_id)
    first = next(iter(stream))
    assert isinstance(first, AgentSessionRequiresActionEvent)
    world.client.beta.agents.sessions.delete(session_id)
    rest = bounded(stream)
    assert [type(e) for e in rest] == [AgentSessionTurnCancelledEvent, AgentSessionIdleEvent]
    assert world.clock.now() == THINK_S  # no idle wait: the stream ended with the session
    with pytest.raises(openai.NotFoundError):
        world.client.beta.agents.sessions.events.stream(session_id)


def test_a_new_stream_starts_now_without_replay(world: World) -> None:
    session_id = busy_session(world)
    first = bounded(world.client.beta.agents.sessions.events.stream(session_id))
    second = bounded(world.client.beta.agents.sessions.events.stream(session_id))
    assert [type(e) for e in second] == [AgentSessionRequiresActionEvent]  # only the state event
    assert second[0].event_id not in {e.event_id for e in first}


def test_environment_events_pass_through_typed_and_send_no_webhook(world: World) -> None:
    session_id = idle_session(world)
    world.clock.sleep(5)  # the hosted environment comes up
    world.fake.webhook_outbox()
    stream = world.client.beta.agents.sessions.events.stream(session_id)  # subscribed from here on
    world.fake.executor.replace(world.fake.environment_id(session_id) or "")
    events = bounded(stream)
    resets = [e for e in events if isinstance(e, AgentSessionEnvironmentResetEvent)]
    assert len(resets) == 1 and resets[0].session_id == session_id and resets[0].reset_count == 1
    assert "agent.session.environment.reset" not in [w.type for w in world.fake.webhook_outbox()]


# -- the SDK's helpers --------------------------------------------------------------------------
def test_sessions_stream_helper_runs_the_article_to_idle_in_the_spec_call_order(world: World) -> None:
    session_id = idle_session(world)
    before = len(world.recorder.seen)
    log: list[str] = []
    with world.client.beta.agents.sessions.stream(session_id, input="Write the article.",
                                                  tool_handlers=handlers(log)) as stream:
        events = bounded(stream)
    assert log == ["wp_upload_media"] * 3 + ["wp_create_draft", "wp_update_post", "wp_set_seo", "wp_get_post"]
    assert isinstance(events[0], AgentSessionIdleEvent)  # the state event, ignored by the helper
    assert isinstance(events[1], AgentSessionTurnCreatedEvent)
    assert isinstance(events[-2], AgentSessionTurnCompletedEvent) and isinstance(events[-1], AgentSessionIdleEvent)
    finals = [e.item for e in events if isinstance(e, AgentSessionTurnItemDoneEvent) and e.item.type == "message"]
    assert finals[-1].phase == "final_answer"
    calls = [(r.method, r.path.rsplit("/", 1)[-1] if r.path.endswith("/events") else "session",
              r.header("idempotency-key") is not None) for r in world.recorder.seen[before:]]
    assert calls[:3] == [("GET", "session", False), ("GET", "events", False), ("POST", "events", True)]
    assert calls[3:] == [("POST", "events", True)] * len(log)  # one keyed tool result per call
    assert world.client.beta.agents.sessions.retrieve(session_id).status == "idle"
    assert all(c["answered"] and c["success"] for c in world.fake.truth()["tool_calls"])


def test_sessions_stream_refuses_a_busy_session(world: World) -> None:
    with pytest.raises(ValueError, match="requires an idle session"):
        with world.client.beta.agents.sessions.stream(busy_session(world), input="again"):
            pass


def test_create_stream_true_with_tool_handlers_gives_the_final_result(world: World) -> None:
    log: list[str] = []
    stream = world.client.beta.agents.sessions.create(
        stream=True, environment={"type": "none"}, agent=AGENT, input="Write the article.",
        metadata={"job_id": "job-1", "task_version": "1"}, tool_handlers=handlers(log))
    result = stream.get_final_result()
    assert result.turn.status == "completed"
    assert result.messages[-1].output_text == "Draft 501 is ready and awaits publish approval."
    assert len(log) == 7


def test_create_stream_true_streams_from_the_created_event(openai_worlds: OpenAIWorlds, transport: str) -> None:
    world = openai_worlds(seed=5, transport=transport)
    events = bounded(world.client.beta.agents.sessions.create(
        stream=True, environment={"type": "none"}, agent=AGENT, input="Write the article.",
        metadata={"job_id": "job-1", "task_version": "1"}, stream_options={"include_obfuscation": False}))
    assert [type(e) for e in events] == [
        AgentSessionCreatedEvent, AgentSessionTurnCreatedEvent, AgentSessionTurnItemAddedEvent,
        AgentSessionInProgressEvent, AgentSessionTurnItemAddedEvent, AgentSessionTurnItemDoneEvent,
        AgentSessionRequiresActionEvent]
    created, turn, user = events[:3]
    assert created.session.status == "idle"  # as it was when created, before its first turn started
    assert turn.turn_id == turn.turn.id and user.item.type == "message" and user.output_index is None
    assert all(e.obfuscation is None for e in events)
    assert [s.id for s in world.client.beta.agents.sessions.list()] == [created.session.id]


# -- faults: a cut stream -----------------------------------------------------------------------
def drop_after(events: int, mode: str) -> Any:
    trigger = Trigger("openai", "GET", "/agents/sessions/{id}/events")
    return get_fault_kind("drop_stream")(0, trigger, {"after_events": events, "mode": mode})


def test_a_reset_after_three_events_raises_api_connection_error(openai_worlds: OpenAIWorlds) -> None:
    fault = drop_after(3, "reset")
    world = openai_worlds(seed=5, faults=[fault])
    seen: list[Any] = []
    with pytest.raises(openai.APIConnectionError):
        for event in world.client.beta.agents.sessions.events.stream(busy_session(world)):
            seen.append(event)
            assert len(seen) < MAX_EVENTS
    assert [type(e) for e in seen] == [AgentSessionInProgressEvent, AgentSessionTurnItemAddedEvent,
                                       AgentSessionTurnItemDoneEvent]
    assert fault.state.evidence[0]["events_delivered"] == 3 and fault.state.evidence[0]["mode"] == "reset"
    assert world.fake.open_streams() == 0  # the cut ended the subscription


def test_an_error_event_makes_the_sdk_raise_api_error_after_the_events_before_it(openai_worlds: OpenAIWorlds) -> None:
    fault = drop_after(2, "error")
    world = openai_worlds(seed=5, faults=[fault])
    seen: list[Any] = []
    with pytest.raises(openai.APIError, match="The event stream failed on the server's side") as raised:
        for event in world.client.beta.agents.sessions.events.stream(busy_session(world)):
            seen.append(event)
            assert len(seen) < MAX_EVENTS
    assert not isinstance(raised.value, openai.APIConnectionError) and len(seen) == 2
    assert isinstance(raised.value.body, dict) and raised.value.body["code"] == "stream_failed"
    assert fault.state.evidence[0]["mode"] == "error"


def test_an_eof_cut_ends_iteration_silently_and_the_helper_raises(openai_worlds: OpenAIWorlds) -> None:
    world = openai_worlds(seed=5, faults=[drop_after(3, "eof")])
    events = bounded(world.client.beta.agents.sessions.events.stream(busy_session(world)))
    assert len(events) == 3
    helper_world = openai_worlds(seed=5, faults=[drop_after(2, "eof")])
    with pytest.raises(RuntimeError, match="ended before the turn reached idle or failed"):
        with helper_world.client.beta.agents.sessions.stream(idle_session(helper_world), input="Write.",
                                                             tool_handlers=handlers([])) as stream:
            bounded(stream)


def test_the_response_body_can_be_read_once(world: World) -> None:
    request = Request.build("GET", f"/v1/agents/sessions/{busy_session(world)}/events",
                            headers={"authorization": "Bearer sk-test-openai", "openai-beta": "agents=v1"})
    response = world.fake.handle(request)
    assert response.stream is not None
    body = response.stream()
    assert isinstance(body, types.GeneratorType)
    assert world.fake.open_streams() == 1
    assert next(body).startswith(b"event: agent.session.in_progress\n")
    with pytest.raises(RuntimeError, match="read only once"):
        response.stream()
    body.close()  # what the ASGI adapter does when the client goes away
    assert world.fake.open_streams() == 0
