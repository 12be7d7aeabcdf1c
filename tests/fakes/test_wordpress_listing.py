"""Listing posts: paging, headers, status, search, slug, ordering and the operation_key lookup."""

from __future__ import annotations

import httpx
import pytest

from durable_harness.harness._clock import VirtualClock

ROOT = "http://wordpress.dh.test/wp-json"


def _make(client: httpx.Client, clock: VirtualClock, n: int, **extra: object) -> list[int]:
    ids = []
    for i in range(n):
        clock.sleep(1)  # distinct dates, so date order is well defined
        ids.append(client.post("/wp/v2/posts", json={"title": f"Post {i}", **extra}).json()["id"])
    return ids


def test_default_listing_is_published_only_newest_first(client: httpx.Client, clock: VirtualClock) -> None:
    published = _make(client, clock, 3, status="publish")
    _make(client, clock, 2)  # drafts: hidden by default
    r = client.get("/wp/v2/posts")
    assert [p["id"] for p in r.json()] == published[::-1]
    assert (r.headers["x-wp-total"], r.headers["x-wp-totalpages"]) == ("3", "1")


def test_empty_listing_is_zero_zero_and_any_page_is_ok(client: httpx.Client) -> None:
    r = client.get("/wp/v2/posts", params={"page": 5})
    assert r.status_code == 200 and r.json() == []
    assert (r.headers["x-wp-total"], r.headers["x-wp-totalpages"]) == ("0", "0")


def test_pages_and_link_headers(client: httpx.Client, clock: VirtualClock) -> None:
    ids = _make(client, clock, 5, status="publish")
    first = client.get("/wp/v2/posts", params={"per_page": 2, "orderby": "id", "order": "asc"})
    assert [p["id"] for p in first.json()] == ids[:2]
    assert first.headers["x-wp-totalpages"] == "3"
    assert set(first.links) == {"https://api.w.org/", "next"}
    assert first.links["next"]["url"] == f"{ROOT}/wp/v2/posts?per_page=2&orderby=id&order=asc&page=2"
    second = client.get(first.links["next"]["url"])
    assert [p["id"] for p in second.json()] == ids[2:4]
    assert {"prev", "next"} <= set(second.links)
    assert second.links["prev"]["url"].endswith("page=1")
    last = client.get("/wp/v2/posts", params={"per_page": 2, "page": 3, "orderby": "id", "order": "asc"})
    assert [p["id"] for p in last.json()] == ids[4:] and "next" not in last.links


def test_page_past_the_end_is_400_when_something_matched(client: httpx.Client, clock: VirtualClock) -> None:
    _make(client, clock, 1, status="publish")
    r = client.get("/wp/v2/posts", params={"page": 2})
    assert r.status_code == 400 and r.json()["code"] == "rest_post_invalid_page_number"
    assert r.json()["message"] == "The page number requested is larger than the number of pages available."


@pytest.mark.parametrize("per_page", ["0", "101"])
def test_per_page_out_of_bounds(client: httpx.Client, anon: httpx.Client, per_page: str) -> None:
    for who in (client, anon):  # validation comes before permissions: a visitor gets the 400 too
        r = who.get("/wp/v2/posts", params={"per_page": per_page})
        body = r.json()
        assert r.status_code == 400 and body["code"] == "rest_invalid_param"
        assert body["message"] == "Invalid parameter(s): per_page"
        assert body["data"]["details"]["per_page"] == {
            "code": "rest_out_of_bounds", "message": "per_page must be between 1 (inclusive) and 100 (inclusive)",
            "data": None}


def test_non_integer_page_is_rest_invalid_type(client: httpx.Client) -> None:
    r = client.get("/wp/v2/posts", params={"page": "two"})
    assert r.status_code == 400 and r.json()["data"]["details"]["page"]["code"] == "rest_invalid_type"


def test_status_any_and_lists_and_edit_context(client: httpx.Client, clock: VirtualClock) -> None:
    drafts = _make(client, clock, 2)
    published = _make(client, clock, 1, status="publish")
    trashed = _make(client, clock, 1)
    client.delete(f"/wp/v2/posts/{trashed[0]}")
    every = client.get("/wp/v2/posts", params={"status": "any", "context": "edit", "orderby": "id", "order": "asc"})
    assert [p["id"] for p in every.json()] == drafts + published
    assert every.json()[0]["title"]["raw"] == "Post 0"
    only = client.get("/wp/v2/posts", params=[("status[]", "draft"), ("status[]", "trash")])
    assert sorted(p["id"] for p in only.json()) == sorted(drafts + trashed)
    comma = client.get("/wp/v2/posts", params={"status": "publish,trash"})
    assert sorted(p["id"] for p in comma.json()) == sorted(published + trashed)


def test_visitor_asking_for_drafts_or_edit_context(anon: httpx.Client) -> None:
    r = anon.get("/wp/v2/posts", params={"status": "any"})
    body = r.json()
    # Core reports the sanitizer's refusal as an invalid parameter whose detail is rest_forbidden_status.
    assert r.status_code == 400 and body["code"] == "rest_invalid_param"
    assert body["data"]["details"]["status"] == {
        "code": "rest_forbidden_status", "message": "Status is forbidden.", "data": {"status": 401}}
    edit = anon.get("/wp/v2/posts", params={"context": "edit"})
    assert edit.status_code == 401 and edit.json()["code"] == "rest_forbidden_context"
    assert anon.get("/wp/v2/posts", params={"status": "publish"}).status_code == 200


def test_unknown_status_for_a_user_is_not_in_enum(client: httpx.Client) -> None:
    r = client.get("/wp/v2/posts", params={"status": "bogus"})
    assert r.status_code == 400 and r.json()["data"]["details"]["status"]["code"] == "rest_not_in_enum"


def test_search_words_are_anded_over_title_excerpt_and_content(client: httpx.Client) -> None:
    a = client.post("/wp/v2/posts", json={"title": "Alpha report", "content": "about beta"}).json()["id"]
    b = client.post("/wp/v2/posts", json={"title": "Beta", "excerpt": "alpha"}).json()["id"]
    client.post("/wp/v2/posts", json={"title": "Gamma"})
    r = client.get("/wp/v2/posts", params={"status": "any", "search": "alpha BETA"})
    assert sorted(p["id"] for p in r.json()) == sorted([a, b])
    titles = client.get("/wp/v2/posts", params={"status": "any", "search": "alpha", "search_columns[]": "post_title"})
    assert [p["id"] for p in titles.json()] == [a]


def test_slug_filter_is_exact_and_misses_empty_draft_slugs(client: httpx.Client) -> None:
    published = client.post("/wp/v2/posts", json={"title": "Exact", "status": "publish"}).json()["id"]
    client.post("/wp/v2/posts", json={"title": "Exact"})  # a draft: slug "", invisible to slug=
    r = client.get("/wp/v2/posts", params={"status": "any", "slug": "exact"})
    assert [p["id"] for p in r.json()] == [published]


def test_orderby_title_and_modified_and_include(client: httpx.Client, clock: VirtualClock) -> None:
    ids = [client.post("/wp/v2/posts", json={"title": t, "status": "publish"}).json()["id"] for t in ("b", "C", "a")]
    by_title = client.get("/wp/v2/posts", params={"orderby": "title", "order": "asc"})
    assert [p["title"]["rendered"] for p in by_title.json()] == ["a", "b", "C"]
    clock.sleep(5)
    client.post(f"/wp/v2/posts/{ids[0]}", json={"content": "touched"})
    by_modified = client.get("/wp/v2/posts", params={"orderby": "modified"})
    assert by_modified.json()[0]["id"] == ids[0]
    included = client.get("/wp/v2/posts", params={"include": f"{ids[2]},{ids[0]}", "orderby": "include"})
    assert [p["id"] for p in included.json()] == [ids[2], ids[0]]
    assert client.get("/wp/v2/posts", params={"orderby": "relevance"}).json()["code"] == "rest_no_search_term_defined"


def test_operation_key_lookup_is_exact(client: httpx.Client, clock: VirtualClock) -> None:
    k1 = client.post("/wp/v2/posts", json={"title": "x", "meta": {"operation_key": "job-1/draft"}}).json()["id"]
    client.post("/wp/v2/posts", json={"title": "y", "meta": {"operation_key": "job-1/draft-2"}})
    client.post("/wp/v2/posts", json={"title": "z"})
    r = client.get("/wp/v2/posts", params={"status": "any", "context": "edit", "operation_key": "job-1/draft"})
    assert [p["id"] for p in r.json()] == [k1] and r.headers["x-wp-total"] == "1"
    unknown = client.get("/wp/v2/posts", params={"status": "any", "context": "edit", "operation_key": "nope"})
    assert unknown.json() == [] and unknown.headers["x-wp-total"] == "0"
    unfiltered = client.get("/wp/v2/posts", params={"status": "any", "operation_key": ""})
    assert unfiltered.headers["x-wp-total"] == "3"


def test_operation_key_lookup_finds_trashed_posts_only_by_status(client: httpx.Client) -> None:
    post = client.post("/wp/v2/posts", json={"title": "x", "meta": {"operation_key": "k"}}).json()["id"]
    client.delete(f"/wp/v2/posts/{post}")
    assert client.get("/wp/v2/posts", params={"status": "any", "operation_key": "k"}).json() == []
    trash = client.get("/wp/v2/posts", params={"status": "trash", "operation_key": "k"}).json()
    assert [p["id"] for p in trash] == [post]


def test_listing_with_many_items_beyond_one_page(client: httpx.Client) -> None:
    for i in range(120):
        client.post("/wp/v2/posts", json={"title": f"p{i}", "meta": {"operation_key": f"k{i % 3}"}})
    r = client.get("/wp/v2/posts", params={"status": "any", "per_page": 100, "operation_key": "k1"})
    assert r.headers["x-wp-total"] == "40" and len(r.json()) == 40
    all_pages = client.get("/wp/v2/posts", params={"status": "any", "per_page": 100})
    assert all_pages.headers["x-wp-totalpages"] == "2" and len(all_pages.json()) == 100
