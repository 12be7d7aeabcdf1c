"""Rank Math's updateMeta endpoint on the fake WordPress."""

from __future__ import annotations

from typing import Any

import httpx

from durable_harness.fakes.wordpress import WordPressFake


def update(client: httpx.Client, body: dict[str, Any]) -> httpx.Response:
    return client.post("/rankmath/v1/updateMeta", json=body)


def test_writes_rank_math_keys_only_and_answers_slug_and_schemas(client: httpx.Client, wordpress: WordPressFake) -> None:
    post = client.post("/wp/v2/posts", json={"title": "x"}).json()["id"]
    r = update(client, {"objectType": "post", "objectID": post, "meta": {
        "rank_math_title": "SEO <b>title</b>", "rank_math_description": "Desc",
        "rank_math_focus_keyword": "a,b", "other_key": "ignored"}})
    assert r.status_code == 200 and r.json() == {"slug": True, "schemas": []}
    truth = wordpress.truth()["posts"][0]
    assert truth["rank_math"] == {"rank_math_description": "Desc", "rank_math_focus_keyword": "a,b",
                                  "rank_math_title": "SEO title"}
    assert truth["events"][-1]["action"] == "rank_math"
    # Not registered for REST: invisible in the post's meta.
    assert client.get(f"/wp/v2/posts/{post}", params={"context": "edit"}).json()["meta"] == {"operation_key": ""}


def test_empty_value_deletes_and_unchanged_values_are_no_mutation(client: httpx.Client, wordpress: WordPressFake) -> None:
    post = client.post("/wp/v2/posts", json={"title": "x"}).json()["id"]
    update(client, {"objectType": "post", "objectID": post, "meta": {"rank_math_title": "T"}})
    before = wordpress.mutations()
    update(client, {"objectType": "post", "objectID": post, "meta": {"rank_math_title": "T"}})
    assert wordpress.mutations() == before
    update(client, {"objectType": "post", "objectID": post, "meta": {"rank_math_title": ""}})
    assert wordpress.truth()["posts"][0]["rank_math"] == {} and wordpress.mutations() == before + 1


def test_permalink_changes_the_slug(client: httpx.Client) -> None:
    post = client.post("/wp/v2/posts", json={"title": "x", "status": "publish"}).json()["id"]
    r = update(client, {"objectType": "post", "objectID": post, "meta": {"permalink": "New Slug"}})
    assert r.json()["slug"] == "new-slug"
    assert client.get(f"/wp/v2/posts/{post}").json()["slug"] == "new-slug"


def test_unknown_post_is_404(client: httpx.Client) -> None:
    r = update(client, {"objectType": "post", "objectID": 999, "meta": {"rank_math_title": "x"}})
    assert (r.status_code, r.json()["code"]) == (404, "rest_post_invalid_id")


def test_missing_and_empty_parameters_are_400(client: httpx.Client) -> None:
    missing = update(client, {"objectType": "post", "meta": {"rank_math_title": "x"}})
    assert (missing.status_code, missing.json()["code"]) == (400, "rest_missing_callback_param")
    assert missing.json()["data"]["params"] == ["objectID"]
    empty = update(client, {"objectType": "post", "objectID": 1, "meta": {}})
    assert (empty.status_code, empty.json()["code"]) == (400, "rest_invalid_param")
    assert empty.json()["data"]["details"]["meta"]["code"] == "param_value_empty"


def test_visitor_cannot_edit(wordpress: WordPressFake, client: httpx.Client, anon: httpx.Client) -> None:
    post = client.post("/wp/v2/posts", json={"title": "x"}).json()["id"]
    r = update(anon, {"objectType": "post", "objectID": post, "meta": {"rank_math_title": "x"}})
    assert (r.status_code, r.json()["code"]) == (401, "rest_cannot_edit")
    assert wordpress.truth()["posts"][0]["rank_math"] == {}


def test_only_post_objects(client: httpx.Client) -> None:
    r = update(client, {"objectType": "term", "objectID": 1, "meta": {"rank_math_title": "x"}})
    assert (r.status_code, r.json()["code"]) == (403, "rest_forbidden")
