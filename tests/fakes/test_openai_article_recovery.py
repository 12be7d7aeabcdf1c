"""The article brain's job options through the real openai SDK: the structured recovery summary (done
roles are taken with their receipts and never re-issued; malformed summaries are refused; a later
"continue" builds on the latest summary) and the ``research_subagent`` flag."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from _article_world import SCRIPT, THINK_S, article_job, make_world
from _article_world import ArticleWorld as World

from durable_harness.fakes.openai_agents import ArticleBrain
from durable_harness.fakes.openai_agents.brains import RECOVERY_SUMMARY_HEADER, recovery_summary

if TYPE_CHECKING:
    from conftest import OpenAIWorlds

ROLES = ["image:1", "image:2", "image:3", "article", "article:update", "article:seo", "article:read"]


@pytest.fixture
def world(openai_worlds: OpenAIWorlds) -> World:
    return make_world(openai_worlds)


def named(name: str, *, nth: int = 1) -> Callable[[Any], bool]:
    seen: list[Any] = []

    def stop(action: Any) -> bool:
        if action.name == name:
            seen.append(action)
        return len(seen) >= nth
    return stop


# -- the summary is followed -------------------------------------------------------------------
def test_done_roles_are_taken_with_their_receipts_and_never_reissued(world: World) -> None:
    session_id = world.start()
    world.drive(session_id, stop_at=named("wp_upload_media", nth=3))  # image:3 sent; its answer lost
    world.cancel_and_say(session_id, recovery_summary({"image:1": {"media_id": 101}, "image:2": {"media_id": 102},
                                                       "image:3": {"media_id": 103}}))
    world.clock.sleep(THINK_S)
    action = world.client.beta.agents.sessions.retrieve(session_id).required_actions[0]
    assert action.name == "wp_create_draft"  # not image:3 again
    session = world.drive(session_id)
    assert session.status == "idle"
    assert world.roles() == ROLES  # every role issued once: image:3 only in the cancelled turn
    calls = world.fake.truth()["tool_calls"]
    assert [(c["role"], c["answered"]) for c in calls][2] == ("image:3", False)
    update = next(a for a in world.calls if a.name == "wp_update_post")
    assert update.arguments["featured_media"] == 101


def test_receipts_from_the_summary_feed_later_calls_and_the_answer(world: World) -> None:
    session_id = world.start()
    world.drive(session_id, stop_at=named("wp_upload_media"))
    done = {"image:1": {"media_id": 7}, "image:2": {"media_id": "8"}, "image:3": {"media_id": 9},
            "article": {"post_id": 777, "link": "https://wp.dh.test/?p=777"}}
    world.cancel_and_say(session_id, recovery_summary(done))
    world.drive(session_id)
    assert [a.name for a in world.calls] == ["wp_update_post", "wp_set_seo", "wp_get_post"]
    assert world.calls[0].arguments["post_id"] == 777 and world.calls[0].arguments["featured_media"] == 7
    assert world.calls[2].arguments == {"post_id": 777}
    assert world.last_answer(session_id) == "Draft 777 is ready and awaits publish approval."
    assert world.roles() == ["image:1", "article:update", "article:seo", "article:read"]


def test_roles_left_out_of_the_summary_are_done_again(world: World) -> None:
    session_id = world.start()
    world.drive(session_id, stop_at=named("wp_create_draft"))  # images 1..3 done per the items
    world.cancel_and_say(session_id, recovery_summary({"image:1": {"media_id": 101}, "image:3": {"media_id": 103}}))
    world.drive(session_id)
    assert world.roles() == ["image:1", "image:2", "image:3", "article", "image:2", *ROLES[3:]]


def test_a_summary_with_everything_done_answers_without_calls(world: World) -> None:
    session_id = world.start()
    world.drive(session_id, stop_at=named("wp_upload_media"))
    receipts: dict[str, dict[str, Any]] = {r: {} for r in ROLES}
    receipts.update({f"image:{n}": {"media_id": n} for n in (1, 2, 3)})
    receipts.update({"article": {"post_id": 42}, "article:read": {"post_id": 42, "status": "draft"}})
    world.cancel_and_say(session_id, recovery_summary(receipts))
    session = world.drive(session_id)
    assert session.status == "idle" and world.calls == []
    assert world.last_answer(session_id) == "Draft 42 is ready and awaits publish approval."


def test_a_later_continue_builds_on_the_latest_summary_and_what_followed(world: World) -> None:
    session_id = world.start()
    world.drive(session_id, stop_at=named("wp_upload_media"))
    world.cancel_and_say(session_id, recovery_summary({"image:1": {"media_id": 1}, "image:2": {"media_id": 2},
                                                       "image:3": {"media_id": 3}}))
    world.drive(session_id, stop_at=named("wp_update_post"))  # the draft is created after the summary
    world.cancel_and_say(session_id, "continue")
    world.drive(session_id)
    # image:1 (cancelled), then after the summary: the draft, the update (cancelled), and after the
    # continue the update again - but neither the images nor the draft
    assert world.roles() == ["image:1", "article", "article:update", "article:update", "article:seo", "article:read"]
    update = [a for a in world.calls if a.name == "wp_update_post"][-1]
    assert update.arguments == {"post_id": 501, "excerpt": update.arguments["excerpt"], "featured_media": 1}


def test_other_top_level_keys_are_ignored(world: World) -> None:
    session_id = world.start()
    world.drive(session_id, stop_at=named("wp_upload_media"))
    text = RECOVERY_SUMMARY_HEADER + "\n" + json.dumps({"phase": "media", "done": {"image:1": {"media_id": 5}}})
    world.cancel_and_say(session_id, "  " + text + "\n")
    world.clock.sleep(THINK_S)
    action = world.client.beta.agents.sessions.retrieve(session_id).required_actions[0]
    assert action.arguments["filename"].endswith("-2.png")


# -- malformed summaries are refused -----------------------------------------------------------
@pytest.mark.parametrize("body, why", [
    ("not json", "is not one JSON object"),
    ('{"done": {}} trailing words', "is not one JSON object"),
    ("[1, 2]", "not a JSON object"),
    ('{"finished": {}}', "'done' is None"),
    ('{"done": {"image:9": {"media_id": 1}}}', "role 'image:9' is not a step of this job"),
    ('{"done": {"image:1": 5}}', "the receipt of 'image:1' is 5"),
    ('{"done": {"image:1": {"id": 5}}}', "no positive integer 'media_id'"),
    ('{"done": {"article": {"post_id": 0}}}', "no positive integer 'post_id'"),
])
def test_a_malformed_summary_ends_the_turn_naming_why(world: World, body: str, why: str) -> None:
    session_id = world.start()
    world.drive(session_id, stop_at=named("wp_upload_media", nth=2))
    issued = len(world.roles())
    world.cancel_and_say(session_id, f"{RECOVERY_SUMMARY_HEADER}\n{body}")
    session = world.drive(session_id)
    assert session.status == "idle" and len(world.roles()) == issued  # no call at all
    answer = world.last_answer(session_id)
    assert answer.startswith("The recovery summary is unusable: ") and why in answer
    world.cancel_and_say(session_id, "continue")  # the bad summary is ignored from now on
    world.clock.sleep(THINK_S)
    action = world.client.beta.agents.sessions.retrieve(session_id).required_actions[0]
    assert action.arguments["filename"].endswith("-2.png")  # re-planned from the agent's own items


def test_a_summary_as_the_first_message_is_just_the_task(world: World) -> None:
    session_id = world.start(recovery_summary({"image:1": {"media_id": 1}}))
    world.drive(session_id)
    assert world.roles() == ROLES


def test_recovery_summary_writes_the_documented_format() -> None:
    text = recovery_summary({"image:1": {"media_id": 3}, "article": {"post_id": 7}})
    header, body = text.split("\n", 1)
    assert header == "RECOVERY SUMMARY"
    assert json.loads(body) == {"done": {"image:1": {"media_id": 3}, "article": {"post_id": 7}}}


# -- research_subagent ---------------------------------------------------------------------------
def test_research_subagent_runs_before_the_first_call_and_changes_no_payload(openai_worlds: OpenAIWorlds) -> None:
    plain, research = make_world(openai_worlds), make_world(openai_worlds, [article_job(research_subagent=True)])
    plain_id, research_id = plain.start(), research.start()
    plain.drive(plain_id)
    research.drive(research_id)
    assert [a.name for a in research.calls] == SCRIPT
    assert [a.arguments for a in research.calls] == [a.arguments for a in plain.calls]
    assert len(research.fake.truth()["subagents"]) == 1 and plain.fake.truth()["subagents"] == []
    items = [i.type for i in research.client.beta.agents.sessions.items.list(research_id, order="asc", limit=100)]
    assert items[:5] == ["message", "create_subagent_call", "wait_for_subagents_call", "agent_message",
                         "function_call"]


def test_research_is_not_redone_after_continue_or_once_a_step_is_done(openai_worlds: OpenAIWorlds) -> None:
    world = make_world(openai_worlds, [article_job(research_subagent=True)])
    session_id = world.start()
    world.drive(session_id, stop_at=named("wp_upload_media", nth=2))
    world.cancel_and_say(session_id, "continue")
    world.drive(session_id)
    assert len(world.fake.truth()["subagents"]) == 1  # the report is in the items already
    fresh = world.start()
    world.drive(fresh, stop_at=named("wp_upload_media"))
    assert len(world.fake.truth()["subagents"]) == 2


def test_research_subagent_must_be_a_bool() -> None:
    with pytest.raises(ValueError, match="input.research_subagent='yes' must be true or false"):
        ArticleBrain.factory({("job-1", "1"): article_job(research_subagent="yes")}, seed=1)
