"""A busy WordPress site: seeded content and the colleague who keeps writing (``durable_harness.fakes.wordpress._busy``).

Pure: a fake on a virtual clock, a ``random.Random`` per component; nothing here is the job's.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from durable_harness.fakes.openai_agents.brains import tiny_png, watermark
from durable_harness.fakes.wordpress import Colleague, Lookalikes, WordPressFake, seed_site
from durable_harness.harness._clock import VirtualClock
from durable_harness.harness.workloads import get_workload

JOB = {"job_id": "job-7", "task_version": "2", "workload": "article",
       "input": {"topic": "t", "title": "Read first", "focus_keyword": "k", "images": 2}}
LOOKS = Lookalikes(job_id="job-7", task_version="2", title="Read first", filenames=("read-first-1.png", "read-first-2.png"),
                   watermark=watermark, operation_key=lambda j, v, r: f"{j}/v{v}/{r}", image=lambda s: tiny_png(f"t/{s}"))
SPEC: dict[str, Any] = {
    "posts": [{"count": 3, "owner": "other_tenant", "title": "same", "date": "later"},
              {"count": 2, "owner": "other_job", "title": "same"},
              {"count": 2, "owner": "earlier_version", "title": "same", "status": "draft"},
              {"count": 1, "owner": "earlier_version", "title": "similar"},
              {"count": 4, "owner": "other_tenant"}],
    "media": [{"count": 3, "owner": "other_job", "filename": "same"}, {"count": 2}],
}


def _seeded(seed: int = 1) -> tuple[WordPressFake, dict[str, list[int]]]:
    clock = VirtualClock()
    fake = WordPressFake(clock)
    return fake, seed_site(fake, random.Random(seed), SPEC, LOOKS, clock.datetime())


def test_seeding_writes_what_the_spec_asks() -> None:
    fake, written = _seeded()
    truth = fake.truth()
    assert len(truth["posts"]) == 12 and len(truth["media"]) == 5
    same = [p for p in truth["posts"] if p["title"] == "Read first"]
    assert len(same) == 7
    assert sum(1 for p in truth["posts"] if p["status"] == "future") == 3, "later and published is scheduled"
    assert {m["filename"] for m in truth["media"][:3]} == {"read-first-1.png", "read-first-2.png", "read-first-1-1.png"}
    assert written["editable"] == [p["id"] for p in truth["posts"] if p["meta"]["operation_key"] == ""]


def test_seeded_content_is_never_the_jobs_and_never_a_duplicate() -> None:
    fake, _ = _seeded()
    truth = {"wordpress": fake.truth(), "openai": {"payloads": {}}}
    article = get_workload("article")
    assert article.job_effects(truth, JOB) == []
    owners = [(e.job_id, e.task_version, e.role) for e in article.effects(truth)]
    assert len(owners) == 5 and len(set(owners)) == 5, "one article per other job and per earlier version"
    assert {v for j, v, _ in owners if j == "job-7"} == {"1", "0", "2-earlier-3"}
    keys = {p["meta"]["operation_key"] for p in truth["wordpress"]["posts"]} - {""}
    assert "job-7/v2/draft" not in keys and "job-7/v1/draft" in keys


def test_seeding_is_a_function_of_the_random_stream() -> None:
    assert _seeded(3)[0].truth() == _seeded(3)[0].truth()
    assert _seeded(3)[0].truth()["posts"] != _seeded(4)[0].truth()["posts"]


def test_the_colleague_writes_only_their_own_and_other_tenants_posts() -> None:
    fake, written = _seeded()
    colleague = Colleague(fake, random.Random(9), LOOKS, titles="same", filenames="same", editable=list(written["editable"]))
    before = {p["id"]: p["updates"] for p in fake.truth()["posts"]}
    done = [colleague.act() for _ in range(40)]
    assert {d["action"] for d in done} == {"create_post", "edit_post", "upload_media"}
    after = fake.truth()
    edited = {p["id"] for p in after["posts"] if p["id"] in before and p["updates"] != before[p["id"]]}
    assert edited and edited <= set(written["editable"]), "never a job's, another job's or a version's post"
    created = [p for p in after["posts"] if p["id"] not in before]
    assert created and all(p["title"] == "Read first" and p["created_by"] == "colleague (dashboard)" for p in created)
    uploads = [m for m in after["media"] if m["created_by"] == "colleague (dashboard)"]
    assert uploads and all(m["original_filename"] in LOOKS.filenames for m in uploads)


@pytest.mark.parametrize("actions", [("edit_post",), ("upload_media",)])
def test_the_colleague_does_only_what_they_are_told(actions: tuple[str, ...]) -> None:
    fake, written = _seeded()
    colleague = Colleague(fake, random.Random(2), LOOKS, actions=actions, editable=list(written["editable"]))
    assert {colleague.act()["action"] for _ in range(10)} == set(actions)


def test_a_colleague_with_nothing_to_edit_writes_a_post_first() -> None:
    fake = WordPressFake(VirtualClock())
    colleague = Colleague(fake, random.Random(2), LOOKS, actions=("edit_post",))
    assert colleague.act()["action"] == "create_post"
    assert colleague.act()["action"] == "edit_post"
