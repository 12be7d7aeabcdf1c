"""Property tests of the fake WordPress's listings: paging, offsets and the lookup every reconcile
depends on, over random sites (the rules were checked against a real WordPress 6.1; see
tests/conformance)."""

from __future__ import annotations

import math

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from durable_harness.fakes.wordpress import WordPressFake
from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._gate import Gate
from durable_harness.harness._history import History

AUTH = ("editor", "abcd EFGH ijkl MNOP qrst UVWX")
ROOT = "http://wordpress.dh.test/wp-json"


def _site(n: int, *, operation_key_query: bool = True) -> httpx.Client:
    clock = VirtualClock()
    fake = WordPressFake(clock, operation_key_query=operation_key_query)
    for i in range(n):
        fake.write_post(title=f"post {i}", content="c", status="draft", by="test", author=1, operation_key=f"k{i % 3}")
    return httpx.Client(base_url=ROOT, transport=Gate(clock, History(), [fake]).transport("p"), auth=AUTH)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 25), per_page=st.integers(1, 10), page=st.integers(1, 6), offset=st.none() | st.integers(0, 30))
def test_pages_and_offsets_follow_wp_query(n: int, per_page: int, page: int, offset: int | None) -> None:
    params = {"status": "any", "per_page": str(per_page), "page": str(page), "orderby": "id", "order": "asc"}
    if offset is not None:
        params["offset"] = str(offset)
    with _site(n) as client:
        r = client.get("/wp/v2/posts", params=params)
    # WP_Query's found_posts: every match, 0 when the page came back empty; the controller counts a
    # page past the end again as page 1, then refuses a page beyond the last (offset or not).
    start = offset if offset is not None else (page - 1) * per_page
    window = list(range(1, n + 1))[start:start + per_page]
    total = n if window else 0
    if total < 1 and page > 1:
        first = offset if offset is not None else 0
        total = n if list(range(1, n + 1))[first:first + per_page] else 0
    pages = math.ceil(total / per_page)
    if page > pages and total > 0:
        assert r.status_code == 400 and r.json()["code"] == "rest_post_invalid_page_number"
        return
    assert r.status_code == 200
    assert [p["id"] for p in r.json()] == window
    assert (r.headers["x-wp-total"], r.headers["x-wp-totalpages"]) == (str(total), str(pages))
    assert ('rel="next"' in r.headers["link"]) == (pages > page)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(0, 40), per_page=st.integers(1, 10))
def test_a_lookup_that_checks_keys_on_every_page_finds_the_same_with_or_without_the_plugin(n: int, per_page: int) -> None:
    def lookup(client: httpx.Client) -> list[int]:
        found, page = [], 1
        while True:
            r = client.get("/wp/v2/posts", params={"status": "any", "context": "edit", "operation_key": "k1",
                                                   "per_page": str(per_page), "page": str(page)})
            found += [p["id"] for p in r.json() if p["meta"]["operation_key"] == "k1"]
            if page >= int(r.headers["x-wp-totalpages"]):
                return sorted(found)
            page += 1

    with _site(n) as filtered, _site(n, operation_key_query=False) as unfiltered:
        assert lookup(filtered) == lookup(unfiltered) == [i + 1 for i in range(n) if i % 3 == 1]
