"""Session artifacts through the real openai SDK: list (CursorPage, ``environment_id``), retrieve,
raw content (still served after the sandbox is replaced or expired), delete, and the truth."""

from __future__ import annotations

import hashlib
import json

import openai
import pytest
from _coding_world import CodingWorld, coding_job, make_world
from openai.pagination import SyncCursorPage
from openai.types.beta.agents.sessions import SessionArtifact, SessionArtifactDeleted


@pytest.fixture
def done() -> tuple[CodingWorld, str]:
    """A coding session driven to its end: one report artifact."""
    world = make_world()
    session = world.drive(world.create().id)
    assert session.status == "idle"
    return world, session.id


def report_bytes(world: CodingWorld) -> bytes:
    env = world.executor.truth()["environments"][0]
    assert "/workspace/report.md" in env["files"]
    return world.executor.read_file(env["id"], "/workspace/report.md")


def test_list_retrieve_and_content(done: tuple[CodingWorld, str]) -> None:
    world, session_id = done
    page = world.sessions.artifacts.list(session_id)
    assert isinstance(page, SyncCursorPage) and len(page.data) == 1
    artifact = page.data[0]
    assert isinstance(artifact, SessionArtifact)
    env_id = world.fake.environment_id(session_id)
    assert (artifact.object, artifact.path, artifact.session_id, artifact.environment_id) == (
        "agent.session.artifact", "/workspace/report.md", session_id, env_id)
    turn = world.sessions.turns.list(session_id).data[0]
    assert artifact.turn_id == turn.id and artifact.created_at == world.clock.unix() - 3  # captured at t=3.0
    assert world.sessions.artifacts.retrieve(artifact.id, session_id=session_id) == artifact
    SessionArtifact.model_validate(world.raw("GET", f"/agents/sessions/{session_id}/artifacts/{artifact.id}").json())
    content = world.sessions.artifacts.content(artifact.id, session_id=session_id)
    assert content.content == report_bytes(world) and artifact.size_bytes == len(content.content)
    raw = world.raw("GET", f"/agents/sessions/{session_id}/artifacts/{artifact.id}/content")
    assert raw.headers["content-type"] == "application/octet-stream"
    assert world.answered[0].arguments["sha256"] == hashlib.sha256(content.content).hexdigest()


def test_list_filters_by_environment(done: tuple[CodingWorld, str]) -> None:
    world, session_id = done
    env_id = world.fake.environment_id(session_id)
    assert len(world.sessions.artifacts.list(session_id, environment_id=env_id).data) == 1
    assert world.sessions.artifacts.list(session_id, environment_id="env_other").data == []


@pytest.mark.parametrize("fault", ["replace", "expire"])
def test_content_is_served_after_the_sandbox_is_gone(done: tuple[CodingWorld, str], fault: str) -> None:
    world, session_id = done
    expected = report_bytes(world)
    env_id = world.fake.environment_id(session_id)
    assert env_id is not None
    getattr(world.executor, fault)(env_id)
    artifact = world.sessions.artifacts.list(session_id).data[0]
    assert world.sessions.artifacts.content(artifact.id, session_id=session_id).content == expected
    assert world.executor.truth()["environments"][0]["files"] == {}


def test_delete_hides_the_artifact(done: tuple[CodingWorld, str]) -> None:
    world, session_id = done
    artifact = world.sessions.artifacts.list(session_id).data[0]
    deleted = world.sessions.artifacts.delete(artifact.id, session_id=session_id)
    assert isinstance(deleted, SessionArtifactDeleted)
    assert (deleted.id, deleted.object, deleted.deleted) == (artifact.id, "agent.session.artifact.deleted", True)
    assert world.sessions.artifacts.list(session_id).data == []
    for call in (world.sessions.artifacts.retrieve, world.sessions.artifacts.content, world.sessions.artifacts.delete):
        with pytest.raises(openai.NotFoundError, match=artifact.id):
            call(artifact.id, session_id=session_id)
    assert [a["deleted"] for a in world.fake.truth()["artifacts"]] == [True]


def test_artifacts_belong_to_their_session(done: tuple[CodingWorld, str]) -> None:
    world, session_id = done
    artifact = world.sessions.artifacts.list(session_id).data[0]
    other = world.create(text=None).id
    with pytest.raises(openai.NotFoundError):
        world.sessions.artifacts.retrieve(artifact.id, session_id=other)
    with pytest.raises(openai.NotFoundError, match="sess_nope"):
        world.sessions.artifacts.list("sess_nope")


def test_artifacts_page_like_every_cursor_list() -> None:
    world = make_world(coding_job())
    session_id = world.drive(world.create().id).id
    for n in range(4):  # capture more reports by asking again after resets
        world.executor.replace(world.fake.environment_id(session_id) or "")
        world.say(session_id, f"The environment was reset ({n}); please redo the work.")
        world.drive(session_id)
    ids = [a.id for a in world.sessions.artifacts.list(session_id, order="asc", limit=2)]
    assert len(ids) == 5 and ids == sorted(ids)
    assert [a.id for a in world.sessions.artifacts.list(session_id, limit=2)] == ids[::-1]


def test_truth_lists_every_artifact_with_its_digest(done: tuple[CodingWorld, str]) -> None:
    world, session_id = done
    truth = world.fake.truth()
    assert json.loads(json.dumps(truth)) == truth
    [artifact] = truth["artifacts"]
    assert artifact["sha256"] == hashlib.sha256(report_bytes(world)).hexdigest()
    assert (artifact["reset_count"], artifact["deleted"], artifact["session_id"]) == (0, False, session_id)
    assert set(artifact) == {"id", "object", "created_at", "environment_id", "path", "session_id", "size_bytes",
                             "turn_id", "sha256", "reset_count", "deleted", "digests"}
    assert [d["sha256"] for d in artifact["digests"]] == [artifact["sha256"]]  # what it held, since it was written
