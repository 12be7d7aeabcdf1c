"""Subagents through the real openai SDK: the article agent's research subagent on the virtual clock,
the subagent endpoints parsed into the SDK's types, subagent turn events on the stream, the
``sessions.stream`` helper's root-turn logic, cancels, ground truth, and ``SpawnSubagent`` rules."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import httpx
import openai
import pytest
from _article_world import AGENT, META, SCRIPT, THINK_S, article_job, bounded, handlers
from openai.pagination import SyncCursorPage
from openai.types.beta import (
    AgentCreateSubagentCallItem,
    AgentReasoningItem,
    AgentSessionIdleEvent,
    AgentSessionMessage,
    AgentSessionSubagentClosedEvent,
    AgentSessionSubagentCreatedEvent,
    AgentSessionTurnCompletedEvent,
    AgentSessionTurnCreatedEvent,
    AgentSessionTurnInProgressEvent,
    AgentSessionTurnItemAddedEvent,
    AgentWaitForSubagentsCallItem,
    Subagent,
)
from openai.types.beta.agent_session_item import AgentMessageItemResource
from openai.types.beta.agents.sessions import Turn

from durable_harness.fakes.openai_agents import Commentary, FinalAnswer, FunctionCall, Reasoning, SessionsFake, SpawnSubagent, Step
from durable_harness.fakes.openai_agents._turns import _check_outputs
from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._gate import Gate
from durable_harness.harness._history import History

if TYPE_CHECKING:
    from conftest import OpenAIWorld, OpenAIWorlds


def research_job(**inputs: Any) -> dict[str, Any]:
    return article_job(research_subagent=True, **inputs)


@pytest.fixture
def world(openai_worlds: OpenAIWorlds) -> OpenAIWorld:
    return openai_worlds(research_job(), seed=5)


def start(world: OpenAIWorld) -> str:
    return world.client.beta.agents.sessions.create(environment={"type": "none"}, agent=AGENT,
                                                    input="Write the article.", metadata=META).id


def researched(world: OpenAIWorld) -> tuple[str, Subagent]:
    """A session whose research subagent has reported (t = 2 * THINK_S); its first call comes next."""
    session_id = start(world)
    world.clock.sleep(2 * THINK_S)
    return session_id, world.client.beta.agents.sessions.subagents.list(session_id).data[0]


# -- the research subagent on the clock ---------------------------------------------------------
def test_the_subagent_turn_completes_before_the_root_turns_first_call(world: OpenAIWorld) -> None:
    sessions = world.client.beta.agents.sessions
    session_id = start(world)
    world.clock.sleep(THINK_S)  # the root agent spawns the researcher
    session = sessions.retrieve(session_id)
    assert (session.status, session.required_actions) == ("in_progress", [])
    subagent = sessions.subagents.list(session_id).data[0]
    assert (subagent.status, subagent.name, subagent.closed_at) == ("active", "researcher", None)
    assert [t.status for t in sessions.subagents.turns.list(subagent.id, session_id=session_id)] == ["in_progress"]
    world.clock.sleep(THINK_S)  # the researcher reports; the root agent is still thinking
    session = sessions.retrieve(session_id)
    assert (session.status, session.required_actions) == ("in_progress", [])
    subagent = sessions.subagents.retrieve(subagent.id, session_id=session_id)
    assert subagent.status == "closed" and subagent.closed_at is not None
    own = sessions.subagents.turns.list(subagent.id, session_id=session_id).data[0]
    assert (own.status, own.subagent_id) == ("completed", subagent.id)
    root = sessions.turns.list(session_id).data
    assert [(t.status, t.subagent_id) for t in root] == [("in_progress", None)]  # root turns only
    world.clock.sleep(THINK_S)
    session = sessions.retrieve(session_id)
    assert session.status == "requires_action" and session.required_actions[0].name == "wp_upload_media"
    assert session.required_actions[0].turn_id == root[0].id


def test_root_items_show_the_call_the_wait_and_the_report(world: OpenAIWorld) -> None:
    session_id, subagent = researched(world)
    world.clock.sleep(THINK_S)
    items = list(world.client.beta.agents.sessions.items.list(session_id, order="asc"))
    assert [i.type for i in items] == ["message", "create_subagent_call", "wait_for_subagents_call", "agent_message",
                                       "function_call"]
    create, wait, report = items[1:4]
    assert isinstance(create, AgentCreateSubagentCallItem) and create.status == "completed"
    assert create.agent_id == subagent.parent_agent_id and create.content[0].type == "output_text"
    assert subagent.instructions is not None and create.content == subagent.instructions
    assert isinstance(wait, AgentWaitForSubagentsCallItem)
    assert (wait.sender_agent_id, wait.recipient_agent_ids, wait.status) == (
        subagent.parent_agent_id, [subagent.id], "completed")
    assert isinstance(report, AgentMessageItemResource)
    assert (report.sender_agent_id, report.recipient_agent_id) == (subagent.id, subagent.parent_agent_id)
    assert {i.turn_id for i in items} == {items[0].turn_id}


def test_subagent_endpoints_parse_strictly_into_the_sdk_types(world: OpenAIWorld) -> None:
    sessions = world.client.beta.agents.sessions
    session_id, subagent = researched(world)
    page = sessions.subagents.list(session_id)
    assert isinstance(page, SyncCursorPage) and page.has_more is False
    raw = json.loads(sessions.subagents.with_raw_response.retrieve(subagent.id, session_id=session_id).text)
    assert Subagent.model_validate(raw).session_id == session_id and raw["object"] == "agent.session.subagent"
    items = sessions.subagents.items.list(subagent.id, session_id=session_id, order="asc")
    assert isinstance(items, SyncCursorPage)
    kinds = [type(i) for i in items]
    assert kinds == [AgentMessageItemResource, AgentReasoningItem, AgentSessionMessage]
    final = items.data[-1]
    assert isinstance(final, AgentSessionMessage) and (final.role, final.phase) == ("assistant", "final_answer")
    turns = sessions.subagents.turns.list(subagent.id, session_id=session_id)
    own = sessions.subagents.turns.retrieve(turns.data[0].id, session_id=session_id, subagent_id=subagent.id)
    assert isinstance(own, Turn) and own.subagent_id == subagent.id and own.agent_id == subagent.parent_agent_id
    turn_items = sessions.subagents.turns.items.list(own.id, session_id=session_id, subagent_id=subagent.id,
                                                     limit=2, order="asc")
    assert isinstance(turn_items, SyncCursorPage) and turn_items.has_more is True
    assert [i.id for i in turn_items] == [i.id for i in items]  # auto-paging on after=data[-1].id
    report = next(i for i in sessions.items.list(session_id) if isinstance(i, AgentMessageItemResource))
    assert report.content[0].type == "output_text" and final.content[0].type == "output_text"
    assert report.content[0].text == final.content[0].text


@pytest.mark.parametrize("path, param", [
    ("/subagents/subagent_9999", "subagent_id"),
    ("/subagents/subagent_9999/items", "subagent_id"),
    ("/subagents/{sub}/turns/turn_9999", "turn_id"),
    ("/subagents/{sub}/turns/turn_9999/items", "turn_id"),
])
def test_unknown_subagents_and_turns_are_404_naming_the_param(world: OpenAIWorld, path: str, param: str) -> None:
    session_id, subagent = researched(world)
    response = world.get(f"/agents/sessions/{session_id}" + path.replace("{sub}", subagent.id))
    assert response.status_code == 404 and response.json()["error"]["param"] == param
    with pytest.raises(openai.NotFoundError):
        world.client.beta.agents.sessions.subagents.list("sess_nope")


# -- the stream ---------------------------------------------------------------------------------
def test_the_stream_shows_the_subagent_turn_first(openai_worlds: OpenAIWorlds, transport: str) -> None:
    world = openai_worlds(research_job(), seed=5, transport=transport)
    session_id = start(world)
    events = bounded(world.client.beta.agents.sessions.events.stream(session_id))
    kinds = [e.type for e in events]
    created = next(e for e in events if isinstance(e, AgentSessionSubagentCreatedEvent))
    closed = next(e for e in events if isinstance(e, AgentSessionSubagentClosedEvent))
    sub_id = created.subagent.id
    own = [e for e in events if isinstance(e, (AgentSessionTurnCreatedEvent, AgentSessionTurnInProgressEvent,
                                               AgentSessionTurnCompletedEvent))]
    assert [(type(e), e.turn.subagent_id) for e in own] == [
        (AgentSessionTurnCreatedEvent, sub_id), (AgentSessionTurnInProgressEvent, sub_id),
        (AgentSessionTurnCompletedEvent, sub_id)]  # the root turn started before the subscription
    first_done = own[-1]
    assert kinds.index(first_done.type) < kinds.index("agent.session.requires_action")
    assert created.subagent.status == "active" and closed.subagent.status == "closed"
    finals = [e.item for e in events if e.type == "agent.session.turn.item.done" and e.item.type == "message"]
    assert [(m.phase, m.turn_id) for m in finals] == [("final_answer", first_done.turn_id)]  # the subagent's
    added = [e for e in events if isinstance(e, AgentSessionTurnItemAddedEvent)]
    assert [e.item.type for e in added if e.turn_id == first_done.turn_id] == ["agent_message", "reasoning",
                                                                               "message"]
    assert "agent.session.idle" not in kinds  # the session stayed busy: its root turn never ended
    assert kinds[-1] == "agent.session.requires_action"


def test_the_sessions_stream_helper_follows_the_root_turn_to_the_end(openai_worlds: OpenAIWorlds) -> None:
    world = openai_worlds(research_job(), seed=5)
    session_id = world.client.beta.agents.sessions.create(environment={"type": "openai_hosted"},
                                                          agent=AGENT, metadata=META).id
    log: list[str] = []
    with world.client.beta.agents.sessions.stream(session_id, input="Write the article.",
                                                  tool_handlers=handlers(log)) as stream:
        events = bounded(stream)
    assert log == SCRIPT
    completed = [e for e in events if isinstance(e, AgentSessionTurnCompletedEvent)]
    assert [e.turn.subagent_id is None for e in completed] == [False, True]
    assert isinstance(events[-1], AgentSessionIdleEvent)
    assert all(c["answered"] and c["success"] for c in world.fake.truth()["tool_calls"])


def test_create_stream_final_result_is_the_root_turns_answer(world: OpenAIWorld) -> None:
    log: list[str] = []
    result = world.client.beta.agents.sessions.create(
        stream=True, environment={"type": "none"}, agent=AGENT, input="Write the article.",
        metadata=META, tool_handlers=handlers(log)).get_final_result()
    assert result.turn.subagent_id is None and result.turn.status == "completed"
    assert result.messages[-1].output_text == "Draft 501 is ready and awaits publish approval."
    assert log == SCRIPT


# -- cancel, continue, truth --------------------------------------------------------------------
def test_a_cancel_while_the_subagent_works_closes_it_and_continue_researches_again(world: OpenAIWorld) -> None:
    sessions = world.client.beta.agents.sessions
    session_id = start(world)
    world.clock.sleep(THINK_S)
    sessions.events.create(session_id, events=[{"type": "agent.session.input.cancel"}])
    assert sessions.retrieve(session_id).status == "idle"
    first = sessions.subagents.list(session_id).data[0]
    assert first.status == "closed"
    assert sessions.subagents.turns.list(first.id, session_id=session_id).data[0].status == "cancelled"
    world.clock.sleep(10 * THINK_S)  # the dropped work never happens
    assert [i.type for i in sessions.subagents.items.list(first.id, session_id=session_id)] == ["agent_message"]
    sessions.events.create(session_id, events=[{"type": "agent.session.input.message", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "continue"}]}]}])
    world.clock.sleep(3 * THINK_S)
    assert sessions.retrieve(session_id).required_actions[0].name == "wp_upload_media"
    assert [s.status for s in sessions.subagents.list(session_id, order="asc")] == ["closed", "closed"]


def test_truth_records_every_subagent(world: OpenAIWorld) -> None:
    session_id, subagent = researched(world)
    truth = world.fake.truth()
    assert json.loads(json.dumps(truth)) == truth
    own = world.client.beta.agents.sessions.subagents.turns.list(subagent.id, session_id=session_id).data[0]
    root = world.client.beta.agents.sessions.turns.list(session_id).data[0]
    assert truth["subagents"] == [{
        "id": subagent.id, "session_id": session_id, "parent_agent_id": subagent.parent_agent_id,
        "name": "researcher", "root_turn_id": root.id, "status": "closed", "opened_at": subagent.opened_at,
        "closed_at": subagent.closed_at, "turns": [{"id": own.id, "status": "completed"}],
        "report": truth["subagents"][0]["report"]}]
    assert truth["subagents"][0]["report"].startswith("Research for 'Home Composting 101'")
    assert truth["sessions"][0]["turns"] == 1 and truth["tool_calls"] == []


# -- SpawnSubagent as any brain's output ----------------------------------------------------------
LOOKUP = {"type": "function", "name": "lookup", "description": "Look it up.",
          "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}
LOOKUP_AGENT = {"model": "gpt-5", "tools": [LOOKUP]}


class _Delegator:
    """Spawns three subagents at once, then makes one call, then answers."""

    def think(self, step: Step) -> Sequence[Any]:
        kinds = [i.get("type") for i in step.items]
        if "agent_message" not in kinds:
            return [Reasoning("Splitting the work."), *(SpawnSubagent(
                f"worker-{n}", f"Part {n}.", [Commentary(f"On part {n}."), FinalAnswer(f"Part {n} done.")],
                model="gpt-5-mini", reasoning_effort="low") for n in (1, 2, 3))]
        if "function_call" not in kinds:
            return [FunctionCall("lookup", {"q": "x"})]
        return [FinalAnswer("All parts done.")]


def test_several_subagents_report_together_and_page() -> None:
    clock = VirtualClock()
    fake = SessionsFake(clock, random.Random(3), api_key="sk-sub", brains=lambda metadata, text: _Delegator())
    gate = Gate(clock, History(), [fake])
    client = openai.OpenAI(api_key="sk-sub", base_url="http://openai.dh.test/v1", max_retries=0,
                           http_client=httpx.Client(transport=gate.transport("test")))
    with client:
        sessions = client.beta.agents.sessions
        session_id = sessions.create(environment={"type": "none"}, agent=LOOKUP_AGENT, input="go").id
        clock.sleep(2 * THINK_S)
        page = sessions.subagents.list(session_id, limit=2)
        assert [s.name for s in page.data] == ["worker-3", "worker-2"] and page.has_more  # newest first
        workers = list(sessions.subagents.list(session_id, limit=2, order="asc"))
        assert [(s.name, s.status) for s in workers] == [(f"worker-{n}", "closed") for n in (1, 2, 3)]
        items = list(sessions.items.list(session_id, order="asc"))
        creates = [i for i in items if isinstance(i, AgentCreateSubagentCallItem)]
        assert [(c.model, c.reasoning_effort) for c in creates] == [("gpt-5-mini", "low")] * 3
        wait = next(i for i in items if isinstance(i, AgentWaitForSubagentsCallItem))
        assert wait.recipient_agent_ids == [s.id for s in workers]
        reports = [i for i in items if isinstance(i, AgentMessageItemResource)]
        assert [r.content[0].text for r in reports if r.content[0].type == "output_text"] == [
            "Part 1 done.", "Part 2 done.", "Part 3 done."]
        clock.sleep(THINK_S)
        action = sessions.retrieve(session_id).required_actions[0]
        sessions.events.create(session_id, events=[{"type": "agent.session.input.tool_result", "turn_id":
                                                    action.turn_id, "call_id": action.call_id, "success": True,
                                                    "output": "{}"}])
        clock.sleep(THINK_S)
        assert sessions.retrieve(session_id).status == "idle"
        turns = list(sessions.turns.list(session_id))
        assert [t.status for t in turns] == ["completed"]


@pytest.mark.parametrize("make, match", [
    (lambda: SpawnSubagent("", "x", [FinalAnswer("r")]), "SpawnSubagent.name=''"),
    (lambda: SpawnSubagent("n", "x", []), "must end with one FinalAnswer"),
    (lambda: SpawnSubagent("n", "x", [FinalAnswer("a"), FinalAnswer("b")]), r"work\[0\]"),
    (lambda: SpawnSubagent("n", "x", [FunctionCall("f", {}), FinalAnswer("b")]),  # type: ignore[list-item]
     r"work\[0\]"),
    (lambda: SpawnSubagent("n", "x", "report"), "must be a sequence"),  # type: ignore[arg-type]
])
def test_spawn_subagent_validates_eagerly(make: Callable[[], SpawnSubagent], match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        make()


def test_spawn_subagent_keeps_work_as_a_tuple_and_exposes_the_report() -> None:
    spawn = SpawnSubagent("n", "x", [Reasoning("r"), FinalAnswer("the report")])
    assert isinstance(spawn.work, tuple) and spawn.report == "the report"


def test_a_spawn_must_end_the_outputs() -> None:
    spawn = SpawnSubagent("n", "x", [FinalAnswer("r")])
    _check_outputs([Reasoning("a"), spawn, spawn])
    with pytest.raises(ValueError, match="follows a SpawnSubagent"):
        _check_outputs([spawn, FunctionCall("f", {})])
    with pytest.raises(ValueError, match="follows a FunctionCall"):
        _check_outputs([FunctionCall("f", {}), spawn])
