"""Each checker on a hand-made record: it passes on a clean one and fails on one with its bug."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness import History, load_scenario
from harness.checkers import CheckInput, CheckResult, checker_names, combine, run_checkers

SCENARIO = load_scenario(Path(__file__).parents[2] / "scenarios" / "lost-draft-response.yaml")
JOB = {"job_id": "job-1", "task_version": "1"}
MARK = "<!-- durable-harness job=job-1 version=1 role=article -->"


def post(pid: int, status: str = "draft") -> dict[str, Any]:
    return {"id": pid, "status": status, "content": f"<p>x</p>{MARK}"}


def history_with_creations(route: str, ids: list[int], lost_first: bool = False) -> History:
    h = History()
    for n, pid in enumerate(ids):
        op = h.invoke(float(n), "worker-1", {"service": "wordpress", "method": "POST", "route": route})
        h.complete(float(n), op, "info" if (lost_first and n == 0) else "ok", {"status": 201, "committed": True, "body": {"id": pid}})
    return h


def run(name: str, history: History, truth: dict[str, Any], claims: dict[str, Any] | None,
        faults: list[dict[str, Any]] | None = None) -> CheckResult:
    return run_checkers(CheckInput(history, truth, claims, SCENARIO, JOB, faults or []), [name])[0]


def good_claims(**extra: Any) -> dict[str, Any]:
    return {"outcome": "needs_human", "operations": [{"operation_key": "k", "state": "CONFIRMED"}], **extra}


def test_duplicate_drafts_counts_extras_with_witnesses() -> None:
    h = history_with_creations("/wp/v2/posts", [7, 8], lost_first=True)
    truth = {"wordpress": {"posts": [post(7), post(8, "trash"), {"id": 9, "content": "unrelated"}]}}
    r = run("duplicate_drafts", h, truth, good_claims())
    assert (r.verdict, r.count) == ("fail", 1)
    assert "posts [7, 8]" in r.because
    assert [w.index for w in r.witnesses] == [1, 3]
    assert "created id 7; its response was lost" in r.witnesses[0].summary and "created id 8" in r.witnesses[1].summary
    clean = run("duplicate_drafts", h, {"wordpress": {"posts": [post(7)]}}, good_claims())
    assert (clean.verdict, clean.count) == ("pass", 0)


def test_duplicate_media_matches_by_payload_digest() -> None:
    h = history_with_creations("/wp/v2/media", [3, 4, 5])
    payloads = {"aa": {"job_id": "job-1", "task_version": "1", "role": "image:1"},
                "bb": {"job_id": "job-1", "task_version": "1", "role": "image:2"}}
    media = [{"id": 3, "sha256": "aa"}, {"id": 4, "sha256": "bb"}, {"id": 5, "sha256": "aa"}]
    r = run("duplicate_media", h, {"wordpress": {"media": media}, "openai": {"payloads": payloads}}, good_claims())
    assert (r.verdict, r.count) == ("fail", 1) and "image:1" in r.because
    assert [w.summary.split("created ")[1][:4] for w in r.witnesses] == ["id 3", "id 5"]
    ok = run("duplicate_media", h, {"wordpress": {"media": media[:2]}, "openai": {"payloads": payloads}}, good_claims())
    assert ok.verdict == "pass"


@pytest.mark.parametrize("state", ["UNKNOWN", "SENT"])
def test_leftover_unknowns_fails_on_open_operations(state: str) -> None:
    h = History()
    h.append(0.0, "report", "worker-1", {"outcome": "unknown"})
    claims = {"outcome": "unknown", "operations": [{"operation_key": "job-1/v1/draft", "state": state},
                                                   {"operation_key": "x", "state": "CONFIRMED"}]}
    r = run("leftover_unknowns", h, {}, claims)
    assert (r.verdict, r.count) == ("fail", 1) and "job-1/v1/draft" in r.because and r.witnesses
    assert run("leftover_unknowns", h, {}, good_claims()).verdict == "pass"
    assert run("leftover_unknowns", h, {}, None).verdict == "unknown"


def test_wrong_outcome() -> None:
    h = History()
    h.append(0.0, "report", "worker-1", {"outcome": "failed"})
    r = run("wrong_outcome", h, {}, {"outcome": "failed"})
    assert (r.verdict, r.count) == ("fail", 1) and "'needs_human'" in r.because
    assert run("wrong_outcome", h, {}, good_claims()).verdict == "pass"
    assert run("wrong_outcome", h, {}, None).verdict == "unknown"


def test_a_fault_that_never_fired_makes_the_run_unknown() -> None:
    fault = {"index": 0, "kind": "lose_response", "at": "POST wordpress/wp/v2/posts #1", "scheduled": 1, "fired": 0}
    r = run("faults_fired", History(), {}, good_claims(), [fault])
    assert r.verdict == "unknown" and "never fired" in r.because
    assert run("faults_fired", History(), {}, good_claims(), [{**fault, "fired": 1}]).verdict == "pass"


def test_a_crashing_checker_is_unknown_never_pass() -> None:
    bad_truth: dict[str, Any] = {"wordpress": {"posts": [{"id": "not-an-int", "content": MARK}, {"id": None, "content": MARK}]}}
    r = run("duplicate_drafts", History(), bad_truth, good_claims())
    assert r.verdict == "unknown" and "crashed" in r.because


def test_combine_fail_beats_unknown_beats_pass() -> None:
    assert combine(["pass", "unknown", "fail"]) == "fail"
    assert combine(["pass", "unknown"]) == "unknown"
    assert combine(["pass"]) == "pass"
    assert combine([]) == "unknown"


def test_every_registered_checker_is_tested_here() -> None:
    assert set(checker_names()) == {"duplicate_drafts", "duplicate_media", "faults_fired", "leftover_unknowns", "wrong_outcome"}
