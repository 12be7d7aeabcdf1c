"""The fake's ground truth, its mutation counter and its front door."""

from __future__ import annotations

import json

import httpx

import durable_harness.fakes.wordpress
from durable_harness.fakes.wordpress import WordPressFake
from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._gate import Gate
from durable_harness.harness._history import History

AUTH = ("editor", "abcd EFGH ijkl MNOP qrst UVWX")
ROOT = "http://wordpress.dh.test/wp-json"
PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde"
       b"\x00\x00\x00\x00IEND\xaeB`\x82")


def test_all_is_sorted_and_exported() -> None:
    assert durable_harness.fakes.wordpress.__all__ == sorted(durable_harness.fakes.wordpress.__all__)
    assert all(hasattr(durable_harness.fakes.wordpress, name) for name in durable_harness.fakes.wordpress.__all__)


def _scenario() -> tuple[WordPressFake, VirtualClock, History]:
    clock = VirtualClock()
    fake = WordPressFake(clock)
    history = History()
    with httpx.Client(base_url=ROOT, transport=Gate(clock, history, [fake]).transport("t"), auth=AUTH) as c:
        draft = c.post("/wp/v2/posts", json={"title": "D", "content": "c", "meta": {"operation_key": "k1"}}).json()
        clock.sleep(10)
        c.post(f"/wp/v2/posts/{draft['id']}", json={"status": "publish"})
        c.get("/wp/v2/posts")
        c.delete(f"/wp/v2/posts/{draft['id']}")
        c.delete(f"/wp/v2/posts/{draft['id']}", params={"force": "true"})
        c.post("/wp/v2/media", content=PNG, headers={"content-type": "image/png",
                                                   "content-disposition": 'attachment; filename="i.png"'})
        c.post("/rankmath/v1/updateMeta", json={"objectType": "post", "objectID": draft["id"], "meta": {"x": "y"}})
        c.get("/wp/v2/nothing")
    return fake, clock, history


def test_truth_shape_and_contents() -> None:
    fake, _, _ = _scenario()
    truth = fake.truth()
    assert list(truth) == ["site_url", "auth_mode", "posts", "media", "app_passwords", "requests", "mutations"]
    (post,) = truth["posts"]
    assert post["status"] == "trash" and post["deleted"] is True and post["deleted_at"] == 10.0
    assert post["title"] == "D" and post["content"] == "c" and post["slug"] == "d__trashed"
    assert post["meta"] == {"operation_key": "k1"} and post["rank_math"] == {}
    assert post["created_at"] == 0.0 and post["created_by"] == "editor/app-password#1"
    assert post["published_at"] == 10.0 and post["trashed_at"] == 10.0 and post["updates"] == 3
    assert [e["action"] for e in post["events"]] == ["create", "update", "trash", "delete"]
    (media,) = truth["media"]
    assert media["filename"] == "i.png" and media["mime_type"] == "image/png" and media["size"] == len(PNG)
    assert media["alt_text"] == "" and media["meta"] == {"operation_key": ""}
    assert truth["requests"] == {
        "DELETE /wp/v2/posts/{id}": 2, "GET (no route)": 1, "GET /wp/v2/posts": 1, "POST /rankmath/v1/updateMeta": 1,
        "POST /wp/v2/media": 1, "POST /wp/v2/posts": 1, "POST /wp/v2/posts/{id}": 1}
    assert truth["mutations"] == fake.mutations() == 5
    json.dumps(truth)  # plain JSON


def test_truth_is_deterministic() -> None:
    assert json.dumps(_scenario()[0].truth()) == json.dumps(_scenario()[0].truth())


def test_mutations_count_commits_only_and_the_gate_sees_them() -> None:
    fake, _, history = _scenario()
    completions = {e.op: e.data for e in history if e.type in ("ok", "fail", "info")}
    invokes = [(e.op, e.data["method"], e.data["route"]) for e in history if e.type == "invoke"]
    committed = [(method, route) for op, method, route in invokes if completions[op]["committed"]]
    assert committed == [("POST", "/wp/v2/posts"), ("POST", "/wp/v2/posts/1"), ("DELETE", "/wp/v2/posts/1"),
                         ("DELETE", "/wp/v2/posts/1"), ("POST", "/wp/v2/media")]
    # The Rank Math call on a force-deleted post was a 404 and changed nothing.


def test_rejected_requests_do_not_count() -> None:
    clock = VirtualClock()
    fake = WordPressFake(clock)
    with httpx.Client(base_url=ROOT, transport=Gate(clock, History(), [fake]).transport("t"), auth=AUTH) as c:
        c.post("/wp/v2/posts", json={"title": ""})
        c.post("/wp/v2/posts", json={"title": "x", "status": "nope"})
        c.post("/wp/v2/posts/5", json={"title": "x"})
        c.get("/wp/v2/posts", params={"status": "any"})
    assert fake.mutations() == 0 and fake.truth()["posts"] == []
