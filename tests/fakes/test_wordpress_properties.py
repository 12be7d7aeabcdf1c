"""Property tests of the fake WordPress: random create/update/trash/delete sequences against a model."""

from __future__ import annotations

from dataclasses import dataclass

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, rule

from durable_harness.fakes.wordpress import WordPressFake
from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._gate import Gate
from durable_harness.harness._history import History

AUTH = ("editor", "abcd EFGH ijkl MNOP qrst UVWX")
ROOT = "http://wordpress.dh.test/wp-json"
KEYS = ("job-a", "job-b", "job-c")
statuses = st.sampled_from(["draft", "publish", "pending", "private"])
keys = st.none() | st.sampled_from(KEYS)


@dataclass
class Expected:
    status: str
    key: str
    deleted: bool = False


class WordPressMachine(RuleBasedStateMachine):
    posts = Bundle("posts")

    def __init__(self) -> None:
        super().__init__()
        self.clock = VirtualClock()
        self.fake = WordPressFake(self.clock)
        transport = Gate(self.clock, History(), [self.fake]).transport("prop")
        self.client = httpx.Client(base_url=ROOT, transport=transport, auth=AUTH)
        self.model: dict[int, Expected] = {}
        self.commits = 0

    def teardown(self) -> None:
        self.client.close()

    def _visible(self) -> dict[int, Expected]:
        return {i: e for i, e in self.model.items() if not e.deleted and e.status != "trash"}

    @rule(target=posts, title=st.text(alphabet="ab c", max_size=6), status=statuses, key=keys)
    def create(self, title: str, status: str, key: str | None) -> int:
        body: dict[str, object] = {"title": title, "content": "body", "status": status}
        if key is not None:
            body["meta"] = {"operation_key": key}
        r = self.client.post("/wp/v2/posts", json=body)
        assert r.status_code == 201, r.text
        post_id = r.json()["id"]
        assert post_id not in self.model
        self.model[post_id] = Expected(status, key or "")
        self.commits += 1
        self.clock.sleep(1)
        return int(post_id)

    @rule(post_id=posts, status=st.none() | statuses, key=keys)
    def update(self, post_id: int, status: str | None, key: str | None) -> None:
        body: dict[str, object] = {}
        if status is not None:
            body["status"] = status
        if key is not None:
            body["meta"] = {"operation_key": key}
        r = self.client.post(f"/wp/v2/posts/{post_id}", json=body)
        expected = self.model[post_id]
        if expected.deleted:
            assert r.status_code == 404
            return
        assert r.status_code == 200, r.text
        expected.status = status or expected.status
        expected.key = key or expected.key
        self.commits += 1

    @rule(post_id=posts)
    def trash(self, post_id: int) -> None:
        r = self.client.delete(f"/wp/v2/posts/{post_id}")
        expected = self.model[post_id]
        if expected.deleted:
            assert r.status_code == 404
        elif expected.status == "trash":
            assert (r.status_code, r.json()["code"]) == (410, "rest_already_trashed")
        else:
            assert r.status_code == 200 and r.json()["status"] == "trash"
            expected.status = "trash"
            self.commits += 1

    @rule(post_id=consumes(posts))
    def force_delete(self, post_id: int) -> None:
        r = self.client.delete(f"/wp/v2/posts/{post_id}", params={"force": "true"})
        expected = self.model[post_id]
        assert r.status_code == (404 if expected.deleted else 200)
        if not expected.deleted:
            expected.deleted = True
            self.commits += 1

    @invariant()
    def listing_matches_the_model(self) -> None:
        r = self.client.get("/wp/v2/posts", params={"status": "any", "context": "edit", "per_page": 100})
        visible = self._visible()
        assert int(r.headers["x-wp-total"]) == len(visible)
        assert {p["id"] for p in r.json()} == set(visible)

    @invariant()
    def operation_key_lookup_is_exact(self) -> None:
        for key in KEYS:
            r = self.client.get("/wp/v2/posts", params={"status": "any", "context": "edit", "operation_key": key})
            assert {p["id"] for p in r.json()} == {i for i, e in self._visible().items() if e.key == key}

    @invariant()
    def truth_agrees(self) -> None:
        truth = self.fake.truth()["posts"]
        ids = [p["id"] for p in truth]
        assert ids == sorted(set(ids)) == sorted(self.model)
        for post in truth:
            expected = self.model[post["id"]]
            assert (post["status"], post["meta"]["operation_key"], post["deleted"]) == (
                expected.status, expected.key, expected.deleted)
        assert self.fake.mutations() == self.commits


TestWordPressMachine = WordPressMachine.TestCase
TestWordPressMachine.settings = settings(max_examples=30, stateful_step_count=12, deadline=None, database=None)
TestWordPressMachine.pytestmark = [pytest.mark.slow]  # a stateful sweep of seconds: `make test` runs it


@settings(max_examples=25, deadline=None, database=None)
@given(tagged=st.lists(st.sampled_from(KEYS + ("",)), min_size=1, max_size=30), per_page=st.integers(1, 7))
def test_paging_through_a_lookup_yields_each_match_once(tagged: list[str], per_page: int) -> None:
    clock = VirtualClock()
    fake = WordPressFake(clock)
    with httpx.Client(base_url=ROOT, transport=Gate(clock, History(), [fake]).transport("p"), auth=AUTH) as c:
        for n, key in enumerate(tagged):
            c.post("/wp/v2/posts", json={"title": f"t{n}", "meta": {"operation_key": key}})
        seen: list[int] = []
        url: str | None = f"{ROOT}/wp/v2/posts?status=any&operation_key=job-a&per_page={per_page}"
        pages = 0
        while url is not None and pages <= len(tagged):  # bounded by the number of posts
            r = c.get(url)
            assert r.status_code == 200
            seen.extend(p["id"] for p in r.json())
            total = int(r.headers["x-wp-total"])
            url = r.links.get("next", {}).get("url")
            pages += 1
    expected = [p["id"] for p in fake.truth()["posts"] if p["meta"]["operation_key"] == "job-a"]
    assert sorted(seen) == sorted(expected) and len(seen) == len(set(seen)) == total
