"""The article brain through the real openai SDK: the script, its payloads and watermark, failed and
unusable results, the "continue" re-issue under a new call_id, ground truth, determinism."""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import openai
import pytest
from _article_world import SCRIPT, THINK_S, article_job, make_world
from _article_world import ArticleWorld as World
from openai.types.beta import AgentFunctionCallItem, AgentReasoningItem, AgentSession, AgentSessionMessage
from openai.types.beta.agent_session_item import FunctionCallOutputItemResource
from openai.types.beta.agents.sessions import Turn

from durable_harness.fakes.openai_agents import ArticleBrain
from durable_harness.fakes.openai_agents.brains import tiny_png, watermark

if TYPE_CHECKING:
    from conftest import OpenAIWorlds


@pytest.fixture
def world(openai_worlds: OpenAIWorlds) -> World:
    return make_world(openai_worlds)


def answer_until(name: str, world: World, reply: dict[str, Any] | None) -> Callable[[Any], dict[str, Any] | None]:
    """Answer normally until the first call named ``name``, which gets ``reply`` (None: leave it)."""
    def answer(action: Any) -> dict[str, Any] | None:
        if action.name == name:
            return reply
        return {"success": True, "output": json.dumps(world.wordpress(action))}
    return answer


def png_is_valid(data: bytes) -> bool:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    offset, chunks = 8, []
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        crc = struct.unpack(">I", data[offset + 8 + length:offset + 12 + length])[0]
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        chunks.append((kind, body))
        offset += 12 + length
    width, height = struct.unpack(">II", chunks[0][1][:8])
    raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    return [k for k, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"] and len(raw) == height * (1 + 3 * width)


# -- the happy path ---------------------------------------------------------------------------
def test_the_script_runs_one_call_at_a_time_to_the_final_answer(world: World) -> None:
    session_id = world.start()
    session = world.drive(session_id)
    assert session.status == "idle"
    assert [a.name for a in world.calls] == SCRIPT
    assert len({a.call_id for a in world.calls}) == len(SCRIPT)
    assert len({a.turn_id for a in world.calls}) == 1
    final = world.messages(session_id)[-1]
    assert (final.role, final.phase, final.output_text) == (
        "assistant", "final_answer", "Draft 501 is ready and awaits publish approval.")
    turn = world.client.beta.agents.sessions.turns.retrieve(world.calls[0].turn_id, session_id=session_id)
    assert turn.status == "completed"


def test_arguments_carry_valid_pngs_the_watermark_and_the_ids_from_earlier_results(world: World) -> None:
    world.drive(world.start())
    uploads, draft, update, seo, read = world.calls[:3], world.calls[3], world.calls[4], world.calls[5], world.calls[6]
    for n, upload in enumerate(uploads, start=1):
        args = upload.arguments
        assert args["filename"] == f"home-composting-101-{n}.png" and args["mime_type"] == "image/png"
        assert args["alt_text"]
        assert png_is_valid(base64.b64decode(args["content_base64"]))
    assert len({u.arguments["content_base64"] for u in uploads}) == 3
    assert set(draft.arguments) == {"title", "content", "excerpt", "slug"}
    assert "<!-- durable-harness job=job-1 version=1 role=article -->" in draft.arguments["content"]
    assert draft.arguments["slug"] == "home-composting-101"
    assert update.arguments == {"post_id": 501, "excerpt": draft.arguments["excerpt"], "featured_media": 101}
    assert set(seo.arguments) == {"post_id", "title", "description", "focus_keyword"}
    assert seo.arguments["focus_keyword"] == "compost"
    assert read.arguments == {"post_id": 501}


def test_truth_registers_sessions_payloads_watermarks_and_calls(world: World) -> None:
    session_id = world.start()
    world.drive(session_id)
    truth = world.fake.truth()
    assert json.loads(json.dumps(truth)) == truth  # plain JSON
    assert truth["sessions"] == [{
        "id": session_id, "metadata": {"job_id": "job-1", "task_version": "1"}, "status": "idle", "deleted": False,
        "created_at": truth["sessions"][0]["created_at"], "turns": 1, "last_turn_status": "completed",
        "user_inputs": ["Write the article about home composting."]}]
    digests = {hashlib.sha256(base64.b64decode(a.arguments["content_base64"])).hexdigest(): f"image:{n}"
               for n, a in enumerate(world.calls[:3], start=1)}
    assert truth["payloads"] == {d: {"job_id": "job-1", "task_version": "1", "role": r} for d, r in digests.items()}
    assert list(truth["payloads"]) == sorted(truth["payloads"])
    assert truth["watermarks"] == {watermark("job-1", "1"): {"job_id": "job-1", "task_version": "1",
                                                             "role": "article"}}
    assert [(c["name"], c["role"], c["answered"], c["success"]) for c in truth["tool_calls"]] == [
        ("wp_upload_media", "image:1", True, True), ("wp_upload_media", "image:2", True, True),
        ("wp_upload_media", "image:3", True, True), ("wp_create_draft", "article", True, True),
        ("wp_update_post", "article:update", True, True), ("wp_set_seo", "article:seo", True, True),
        ("wp_get_post", "article:read", True, True)]
    assert [c["call_id"] for c in truth["tool_calls"]] == [a.call_id for a in world.calls]
    assert {c["session_id"] for c in truth["tool_calls"]} == {session_id}


def test_same_seed_same_world_other_seed_other_bytes(openai_worlds: OpenAIWorlds) -> None:
    def run(seed: int) -> tuple[dict[str, Any], list[Any]]:
        world = make_world(openai_worlds, seed=seed)
        world.drive(world.start())
        return world.fake.truth(), [(a.call_id, a.arguments) for a in world.calls]

    assert run(11) == run(11)
    assert run(11)[0]["payloads"].keys().isdisjoint(run(12)[0]["payloads"].keys())


def test_tiny_png_is_deterministic_and_valid() -> None:
    assert tiny_png("a") == tiny_png("a") != tiny_png("b")
    assert png_is_valid(tiny_png("a"))
    with pytest.raises(ValueError, match="size"):
        tiny_png("a", size=0)


def test_every_object_of_a_full_run_validates_strictly_against_the_sdk_models(world: World) -> None:
    session_id = world.start()
    world.drive(session_id, answer_until("wp_set_seo", world, {"success": False, "error": "rank math refused"}))
    world.say(session_id, "continue")
    world.drive(session_id)
    sessions = world.client.beta.agents.sessions
    strict = {"message": AgentSessionMessage, "reasoning": AgentReasoningItem,
              "function_call": AgentFunctionCallItem, "function_call_output": FunctionCallOutputItemResource}
    raw_items = json.loads(sessions.items.with_raw_response.list(session_id, limit=100).text)["data"]
    assert {i["type"] for i in raw_items} == {"message", "function_call", "function_call_output"}
    for raw in raw_items:
        strict[raw["type"]].model_validate(raw)
    for raw in json.loads(sessions.turns.with_raw_response.list(session_id).text)["data"]:
        assert Turn.model_validate(raw).status == "completed"
    assert AgentSession.model_validate(json.loads(sessions.with_raw_response.retrieve(session_id).text)).status \
        == "idle"
    outputs = [i for i in sessions.items.list(session_id, order="asc", limit=100)
               if isinstance(i, FunctionCallOutputItemResource)]
    assert [o.status for o in outputs].count("failed") == 1


# -- failures end the turn, not the task ------------------------------------------------------
def test_a_failed_result_ends_the_turn_with_a_final_answer_naming_the_step(world: World) -> None:
    session_id = world.start()
    session = world.drive(session_id, answer_until("wp_create_draft", world,
                                                   {"success": False, "error": "rest_cannot_create"}))
    assert session.status == "idle"
    final = world.messages(session_id)[-1]
    assert final.phase == "final_answer"
    assert "article (wp_create_draft) failed: rest_cannot_create" in final.output_text
    turn = world.client.beta.agents.sessions.turns.list(session_id).data[0]
    assert turn.status == "completed"  # the turn completing is not the task succeeding
    assert world.fake.truth()["tool_calls"][-1]["success"] is False


@pytest.mark.parametrize("output, why", [
    ("not json", "is not JSON"),
    (json.dumps([1, 2]), "is not a JSON object"),
    (json.dumps({"id": 5}), "no positive integer 'media_id'"),
])
def test_an_unusable_result_ends_the_turn_too(world: World, output: str, why: str) -> None:
    session_id = world.start()
    world.drive(session_id, answer_until("wp_upload_media", world, {"success": True, "output": output}))
    final = world.messages(session_id)[-1]
    assert "image:1 (wp_upload_media) returned an unusable result" in final.output_text and why in final.output_text


def test_structured_output_parts_are_read_as_text(world: World) -> None:
    def parts(action: Any) -> dict[str, Any]:
        return {"success": True, "output": [{"type": "input_text", "text": json.dumps(world.wordpress(action))}]}

    session = world.drive(world.start(), parts)
    assert session.status == "idle"
    assert "is ready" in world.messages(session.id)[-1].output_text


# -- "continue": re-plan from the items and re-issue under a new call_id -----------------------
def test_continue_after_a_cancel_reissues_the_unanswered_action_under_a_new_call_id(world: World) -> None:
    session_id = world.start()
    session = world.drive(session_id, lambda a: None if a.arguments.get("filename", "").endswith("-2.png")
                          else {"success": True, "output": json.dumps(world.wordpress(a))})
    lost = session.required_actions[0]
    sessions = world.client.beta.agents.sessions
    sessions.events.create(session_id, events=[{"type": "agent.session.input.cancel"}])
    world.say(session_id, "continue")
    world.clock.sleep(THINK_S)
    again = sessions.retrieve(session_id).required_actions[0]
    assert again.name == lost.name and again.arguments == lost.arguments  # the same business action...
    assert again.call_id != lost.call_id and again.turn_id != lost.turn_id  # ...under a new call, in a new turn
    with pytest.raises(openai.BadRequestError, match=f"Unknown pending tool call: {lost.call_id}"):
        sessions.events.create(session_id, events=[{"type": "agent.session.input.tool_result",
                                                    "turn_id": lost.turn_id, "call_id": lost.call_id,
                                                    "success": True, "output": "{}"}])
    image2 = [c for c in world.fake.truth()["tool_calls"] if c["role"] == "image:2"]
    assert [(c["answered"], c["turn_id"]) for c in image2] == [(False, lost.turn_id), (False, again.turn_id)]
    session = world.drive(session_id)
    assert session.status == "idle"
    assert [a.name for a in world.calls] == SCRIPT
    truth = world.fake.truth()
    assert truth["sessions"][0]["user_inputs"] == ["Write the article about home composting.", "continue"]
    assert truth["sessions"][0]["turns"] == 2


def test_continue_after_a_failure_reissues_the_failed_action_with_the_same_arguments(world: World) -> None:
    session_id = world.start()
    world.drive(session_id, answer_until("wp_create_draft", world, {"success": False, "error": "timeout"}))
    failed = world.calls[-1]
    world.say(session_id, "continue")
    world.drive(session_id)
    retried = world.calls[len(SCRIPT) - 3]
    assert retried.name == "wp_create_draft" and retried.arguments == failed.arguments
    assert retried.call_id != failed.call_id and retried.turn_id != failed.turn_id
    assert [a.name for a in world.calls] == SCRIPT[:4] + SCRIPT[3:]  # uploads are not redone


def test_continue_when_everything_is_done_answers_again_without_new_calls(world: World) -> None:
    session_id = world.start()
    world.drive(session_id)
    calls_before = len(world.fake.truth()["tool_calls"])
    world.say(session_id, "continue")
    session = world.drive(session_id)
    assert session.status == "idle"
    assert len(world.fake.truth()["tool_calls"]) == calls_before
    finals = [m.output_text for m in world.messages(session_id) if m.phase == "final_answer"]
    assert finals == ["Draft 501 is ready and awaits publish approval."] * 2


# -- choosing the job -------------------------------------------------------------------------
def test_a_single_job_is_used_without_metadata(world: World) -> None:
    session = world.drive(world.start(metadata={}))
    assert session.status == "idle"
    assert "is ready" in world.messages(session.id)[-1].output_text


def test_an_unidentifiable_job_fails_the_turn_and_the_session_clearly(openai_worlds: OpenAIWorlds) -> None:
    world = make_world(openai_worlds, [article_job("a"), article_job("b")])
    session_id = world.start(metadata={"job_id": "c", "task_version": "1"})
    session = world.drive(session_id)
    assert session.status == "failed"
    assert session.error is not None and "job_id='c'" in session.error
    turn = world.client.beta.agents.sessions.turns.list(session_id).data[0]
    assert turn.status == "failed" and turn.error is not None and turn.error.code == "invalid_request"
    assert "Cannot tell which article job" in world.messages(session_id)[-1].output_text
    with pytest.raises(openai.BadRequestError, match="has failed"):
        world.say(session_id, "continue")


def test_metadata_picks_among_several_jobs(openai_worlds: OpenAIWorlds) -> None:
    world = make_world(openai_worlds, [article_job("a"), article_job("b", topic="bees", title="Urban Bees")])
    world.drive(world.start(metadata={"job_id": "b", "task_version": "1"}))
    assert world.calls[0].arguments["filename"] == "urban-bees-1.png"
    assert all(c["job_id"] == "b" for c in world.fake.truth()["tool_calls"])


def test_images_and_preamble_are_configurable(openai_worlds: OpenAIWorlds) -> None:
    world = make_world(openai_worlds, [article_job(images=1, preamble_items=4)])
    session_id = world.start()
    world.drive(session_id)
    assert [a.name for a in world.calls] == ["wp_upload_media", *SCRIPT[3:]]
    kinds = [i.type for i in world.client.beta.agents.sessions.items.list(session_id, order="asc", limit=100)]
    assert kinds[:6] == ["message", "reasoning", "message", "reasoning", "message", "function_call"]


@pytest.mark.parametrize("job, match", [
    ({**article_job(), "workload": "coding"}, "workload='coding'"),
    ({**article_job(), "input": {"topic": "t", "title": "", "focus_keyword": "k"}}, "input.title=''"),
    (article_job(images=-1), "input.images=-1"),
])
def test_factory_validates_jobs_eagerly(job: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ArticleBrain.factory({("job-1", "1"): job}, seed=1)


def test_factory_rejects_a_key_that_does_not_match_the_job() -> None:
    with pytest.raises(ValueError, match="does not match"):
        ArticleBrain.factory({("job-1", "2"): article_job()}, seed=1)
