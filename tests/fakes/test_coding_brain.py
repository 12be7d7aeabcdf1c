"""The coding brain through the real openai SDK: work done inside the sandbox as command_execution
items, the report artifact and its digest-checked delivery, stale results after a replacement
(refused by a careful candidate, redone after the user's message), kill, disconnect mid-turn
(park and resume), expiry (sandbox_error), ground truth and determinism."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from _coding_world import THINK_S, WINDOW_S, CodingWorld, coding_job, make_world
from openai.types.beta import AgentCommandExecutionItem

from durable_harness.fakes.openai_agents import CodingBrain

HAPPY = ["write src/slugify.py", "write tests/test_slugify.py", "python -m pytest", "write report.md",
         "sha256sum report.md"]


@pytest.fixture
def world() -> CodingWorld:
    return make_world()


def env_of(world: CodingWorld, session_id: str) -> str:
    env_id = world.fake.environment_id(session_id)
    assert env_id is not None
    return env_id


def deliveries(world: CodingWorld) -> list[dict[str, Any]]:
    return [c for c in world.fake.truth()["tool_calls"] if c["name"] == "deliver_result"]


# -- the happy path ----------------------------------------------------------------------------
def test_the_agent_works_in_the_sandbox_and_delivers_a_verified_report(world: CodingWorld) -> None:
    session_id = world.create().id
    session = world.drive(session_id)
    assert session.status == "idle"
    commands = world.commands(session_id)
    assert [c.command for c in commands] == HAPPY
    assert all(isinstance(c, AgentCommandExecutionItem) for c in commands)
    assert [(c.exit_code, c.status, c.cwd) for c in commands] == [(0, "completed", "/workspace")] * 5
    assert commands[2].output is not None and commands[2].output.endswith("2 passed in 0.01s")
    raw = json.loads(world.sessions.items.with_raw_response.list(session_id, limit=100).text)["data"]
    for item in raw:
        if item["type"] == "command_execution":
            AgentCommandExecutionItem.model_validate(item)
            assert isinstance(item["duration_ms"], int) and item["duration_ms"] > 0
    [action] = world.answered
    assert action.name == "deliver_result"
    args = action.arguments
    assert set(args) == {"artifact_id", "path", "sha256", "tests"}
    assert args["path"] == "/workspace/report.md"
    assert args["tests"] == {"passed": True, "output": commands[2].output, "reset_count": 0}
    assert args["sha256"] in commands[4].output
    assert world.verdicts == [{"call_id": action.call_id, "problems": []}]
    report = world.sessions.artifacts.content(args["artifact_id"], session_id=session_id).content.decode()
    assert "- tests ran at reset_count: 0" in report and "2 passed in 0.01s" in report
    assert world.finals(session_id) == [
        f"Delivered /workspace/report.md as artifact {args['artifact_id']} (sha256 {args['sha256']}); tests passed "
        "at reset_count 0."]
    turns = world.sessions.turns.list(session_id).data
    assert len(turns) == 1 and turns[0].status == "completed"


def test_truth_registers_the_report_payload_with_its_facts(world: CodingWorld) -> None:
    session_id = world.create().id
    world.drive(session_id)
    args = world.answered[0].arguments
    truth = world.fake.truth()
    assert truth["payloads"] == {args["sha256"]: {
        "job_id": "job-c", "task_version": "1", "role": "report", "tests_reset_count": 0, "tests_passed": True,
        "artifact_id": args["artifact_id"], "environment_id": env_of(world, session_id),
        "path": "/workspace/report.md"}}
    [call] = deliveries(world)
    assert (call["role"], call["answered"], call["success"]) == ("report", True, True)
    assert call["facts"]["tests_reset_count"] == 0
    env = truth["executor"]["environments"][0]
    assert [(c["command"], c["reset_count"]) for c in env["commands"]] == [(c, 0) for c in HAPPY]
    assert env["files"]["/workspace/report.md"]["sha256"] == args["sha256"]


def test_the_sdk_stream_helper_runs_the_coding_turn_with_a_deliver_result_handler(world: CodingWorld) -> None:
    session_id = world.create(text=None).id
    delivered: list[dict[str, Any]] = []

    def deliver_result(arguments: dict[str, Any]) -> dict[str, Any]:
        delivered.append(arguments)
        return {"accepted": True}

    with world.sessions.stream(session_id, input="Implement the module.",
                               tool_handlers={"deliver_result": deliver_result}) as stream:
        events = list(stream)
    done = [e.item for e in events if e.type == "agent.session.turn.item.done"]
    assert [i.command for i in done if isinstance(i, AgentCommandExecutionItem)] == HAPPY
    assert [d["tests"]["reset_count"] for d in delivered] == [0]
    assert world.sessions.retrieve(session_id).status == "idle"


# -- resets --------------------------------------------------------------------------------------
def replace_after_the_tests(world: CodingWorld) -> str:
    """Start the turn, let the first thought run the tests, then replace the sandbox."""
    session_id = world.create().id
    world.clock.sleep(THINK_S)
    assert [c.command for c in world.commands(session_id)] == HAPPY[:3]
    assert world.executor.replace(env_of(world, session_id)) == 1
    return session_id


def test_a_replacement_mid_turn_yields_a_stale_delivery_a_careful_candidate_refuses(world: CodingWorld) -> None:
    session_id = replace_after_the_tests(world)
    session = world.drive(session_id)
    assert session.status == "idle"
    [stale] = world.answered
    assert stale.arguments["tests"]["reset_count"] == 0  # the agent did not look: the tests predate the reset
    assert world.verdicts[0]["problems"] == ["stale tests: ran at reset_count 0, the environment was reset to 1"]
    assert "was refused: stale tests" in world.finals(session_id)[-1]
    world.say(session_id, "The environment was reset after your tests ran; please redo and deliver again.")
    world.drive(session_id)
    fresh = world.answered[-1]
    assert fresh.arguments["tests"]["reset_count"] == 1 and fresh.arguments["sha256"] != stale.arguments["sha256"]
    assert world.verdicts[-1]["problems"] == []
    assert [c.command for c in world.commands(session_id)] == HAPPY + HAPPY  # missing files rewritten, all redone
    payloads = world.fake.truth()["payloads"]
    assert {p["tests_reset_count"] for p in payloads.values()} == {0, 1}
    assert [(c["success"], c["facts"]["tests_reset_count"]) for c in deliveries(world)] == [(False, 0), (True, 1)]


def test_a_naive_candidate_accepting_the_stale_result_is_visible_in_the_truth(world: CodingWorld) -> None:
    session_id = replace_after_the_tests(world)
    world.drive(session_id, lambda s, a: {"success": True, "output": "{}"})
    [call] = deliveries(world)
    truth = world.fake.truth()
    assert call["success"] is True and call["facts"]["tests_reset_count"] == 0
    assert truth["executor"]["environments"][0]["reset_count"] == 1  # accepted tests predate the last reset


def test_a_reset_after_delivery_is_redone_at_the_next_user_message(world: CodingWorld) -> None:
    session_id = world.create().id
    world.drive(session_id)
    world.executor.replace(env_of(world, session_id))
    world.say(session_id, "continue")
    world.drive(session_id)
    assert [a.arguments["tests"]["reset_count"] for a in world.answered] == [0, 1]
    assert len(world.sessions.artifacts.list(session_id).data) == 2


def test_continue_without_a_reset_delivers_a_fresh_capture_of_the_refused_report(world: CodingWorld) -> None:
    """The stored artifact may be what was wrong (corrupted in storage): the agent captures the
    report again from the sandbox, honestly, and delivers that one; nothing else is redone."""
    session_id = world.create().id
    world.drive(session_id, lambda s, a: {"success": False, "error": "try later"})
    world.say(session_id, "continue")
    world.drive(session_id)
    first, second = world.answered
    assert first.call_id != second.call_id and first.arguments["artifact_id"] != second.arguments["artifact_id"]
    assert {k: v for k, v in first.arguments.items() if k != "artifact_id"} == \
        {k: v for k, v in second.arguments.items() if k != "artifact_id"}
    assert [c.command for c in world.commands(session_id)] == HAPPY  # nothing redone in the sandbox


def test_a_report_corrupted_in_storage_is_delivered_intact_the_second_time(world: CodingWorld) -> None:
    session_id = world.create().id

    def corrupt_then_refuse(session: Any, action: Any) -> dict[str, Any]:
        assert world.fake.corrupt_latest_artifact() is not None
        return {"success": False, "error": "the artifact's digest does not match"}

    world.drive(session_id, corrupt_then_refuse)
    world.say(session_id, "continue")
    world.drive(session_id)
    first, second = world.answered
    assert first.arguments["sha256"] == second.arguments["sha256"]
    assert world.verdicts[-1]["problems"] == []  # the second artifact's bytes are the report's


def test_a_deleted_artifact_is_captured_again(world: CodingWorld) -> None:
    session_id = world.create().id

    def delete_then_refuse(session: Any, action: Any) -> dict[str, Any]:
        world.sessions.artifacts.delete(action.arguments["artifact_id"], session_id=session_id)
        return {"success": False, "error": "artifact gone"}

    world.drive(session_id, delete_then_refuse)
    world.say(session_id, "continue")
    world.drive(session_id)
    first, second = world.answered
    assert first.arguments["artifact_id"] != second.arguments["artifact_id"]
    assert first.arguments["sha256"] == second.arguments["sha256"] and world.verdicts[-1]["problems"] == []


def test_kill_loses_no_files_and_needs_no_redo(world: CodingWorld) -> None:
    session_id = world.create().id
    world.clock.sleep(THINK_S)
    world.executor.kill(env_of(world, session_id))
    world.drive(session_id)
    assert [c.command for c in world.commands(session_id)] == HAPPY
    assert world.verdicts[-1]["problems"] == [] and world.answered[0].arguments["tests"]["reset_count"] == 0


# -- disconnect and expiry -------------------------------------------------------------------------
def test_a_disconnect_mid_turn_parks_the_turn_until_reconnect(world: CodingWorld) -> None:
    session_id = world.create().id
    world.clock.sleep(THINK_S)
    env_id = env_of(world, session_id)
    world.executor.disconnect(env_id)
    world.clock.sleep(THINK_S * 4)
    parked = world.drive(session_id)
    assert parked.status == "requires_action"
    assert [(a.type, getattr(a, "environment_id", None)) for a in parked.required_actions] == [
        ("environment_connection", env_id)]
    turn = world.sessions.turns.list(session_id).data[0]
    assert turn.status == "waiting"
    assert len(world.commands(session_id)) == 3  # nothing ran while disconnected
    world.executor.reconnect(env_id)
    assert world.sessions.retrieve(session_id).status == "in_progress"
    done = world.drive(session_id)
    assert done.status == "idle" and [c.command for c in world.commands(session_id)] == HAPPY
    assert len(world.sessions.turns.list(session_id).data) == 1 and world.verdicts[-1]["problems"] == []


def test_a_disconnect_while_a_call_is_pending_shows_both_actions(world: CodingWorld) -> None:
    session_id = world.create().id
    session = world.drive(session_id, lambda s, a: None)  # stop at deliver_result
    env_id = env_of(world, session_id)
    world.executor.disconnect(env_id)
    both = world.sessions.retrieve(session_id)
    assert [a.type for a in both.required_actions] == ["function_call", "environment_connection"]
    call = session.required_actions[0]
    world.sessions.events.create(session_id, events=[{"type": "agent.session.input.tool_result", "turn_id":
                                                      call.turn_id, "call_id": call.call_id, "success": True,
                                                      "output": "{}"}])
    world.clock.sleep(THINK_S)
    parked = world.sessions.retrieve(session_id)
    assert [a.type for a in parked.required_actions] == ["environment_connection"]
    world.executor.reconnect(env_id)
    assert world.drive(session_id).status == "idle" and world.finals(session_id)[-1].startswith("Delivered")


def test_expiry_mid_turn_fails_the_turn_with_sandbox_error(world: CodingWorld) -> None:
    session_id = world.create().id
    world.clock.sleep(THINK_S)
    world.executor.disconnect(env_of(world, session_id))
    world.clock.sleep(WINDOW_S)
    failed = world.sessions.retrieve(session_id)
    assert failed.status == "failed" and failed.required_actions == []
    turn = world.sessions.turns.list(session_id).data[0]
    assert turn.status == "failed" and turn.error is not None and turn.error.code == "sandbox_error"
    assert world.sessions.artifacts.list(session_id).data == []
    assert [t for t, _ in world.events if t in ("agent.session.environment.expired", "agent.session.failed")] == [
        "agent.session.environment.expired", "agent.session.failed"]


# -- configuration and determinism -----------------------------------------------------------------
def test_a_session_without_a_hosted_environment_fails_clearly(world: CodingWorld) -> None:
    session = world.drive(world.create(environment={"type": "none"}).id)
    assert session.status == "failed" and "openai_hosted" in str(session.error)


def test_other_functions_and_report_paths() -> None:
    world = make_world(coding_job(module="textkit", functions=["wrap", "shout", "slugify"],
                                  report_path="out/summary.md"))
    session_id = world.create().id
    world.drive(session_id)
    assert world.answered[0].arguments["path"] == "/workspace/out/summary.md"
    assert world.answered[0].arguments["tests"]["output"].endswith("3 passed in 0.01s")


def test_same_seed_same_world_other_seed_other_bytes() -> None:
    def run(seed: int) -> tuple[Any, ...]:
        world = make_world(seed=seed)
        session_id = world.create().id
        world.drive(session_id)
        return world.fake.truth(), [a.arguments for a in world.answered]

    assert run(5) == run(5)
    assert run(5)[1][0]["sha256"] != run(6)[1][0]["sha256"]


def test_report_and_sources_derive_from_job_and_seed() -> None:
    brain = CodingBrain(coding_job(), seed=1)
    assert brain.source() == CodingBrain(coding_job(), seed=1).source() != CodingBrain(coding_job(), seed=2).source()
    assert brain.tests().startswith(b"from slugify import slugify, dedupe\n")
    report = brain.report("env_x", "1 passed in 0.01s", 3, True)
    assert b"- tests ran at reset_count: 3" in report and hashlib.sha256(report).hexdigest()


@pytest.mark.parametrize("job, match", [
    ({**coding_job(), "workload": "article"}, "workload='article'"),
    (coding_job(module="not-an-identifier"), "input.module="),
    (coding_job(functions=[]), "input.functions=\\[\\]"),
    (coding_job(functions=["a", "a"]), "distinct"),
    (coding_job(report_path="/etc/report.md"), "input.report_path="),
    (coding_job(report_path="../up.md"), "input.report_path="),
])
def test_factory_validates_jobs_eagerly(job: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        CodingBrain.factory({("job-c", "1"): job}, seed=1)


def test_an_unidentifiable_job_fails_the_session() -> None:
    world = make_world(coding_job("a"), coding_job("b"))
    session = world.drive(world.create(metadata={"job_id": "c", "task_version": "1"}).id)
    assert session.status == "failed" and "Cannot tell which coding job" in str(session.error)
