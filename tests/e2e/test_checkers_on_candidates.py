"""Every checker fails on a control plane that has the bug it looks for (not only on hand-made
records): one known-bad candidate, or a test candidate, per checker, in a real run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness import load_scenario, run_scenario
from durable_harness.harness.checkers import checker_names
from tests.e2e._drivers import DRIVERS, driver_param

REPO = Path(__file__).parents[2]

CASES = [  # (checker, candidate, scenario, verdict)
    ("duplicate_drafts", "mutant:blind-retry", "lost-draft-response", "fail"),
    ("duplicate_media", "mutant:blind-retry", "lost-media-response-2", "fail"),
    ("leftover_unknowns", "mutant:no-reconcile", "lost-seo-response", "fail"),
    ("wrong_outcome", "mutant:unknown-is-failure", "lost-seo-response", "fail"),
    ("ledger_mismatches", "mutant:unknown-is-failure", "lost-draft-response", "fail"),
    ("resubmitted_tasks", "mutant:resubmit-on-drop", "stream-dropped-mid-turn", "fail"),
    ("unreported_effects", "mutant:continue-instead-of-result", "waiting-for-tool-result", "fail"),
    ("progress_loss", "mutant:new-session-on-restart", "crash-after-draft-commit", "fail"),
    ("wrong_checkpoint_advances", "mutant:trust-environment-id", "executor-replaced", "fail"),
    ("stuck_jobs", "test_runs:idle", "baseline", "fail"),
    ("accepted_forgeries", "mutant:webhook-unverified", "forged-webhooks", "fail"),
    ("unauthorized_calls", "mutant:stale-approval", "approval-revoked-before-publish", "fail"),
    # The reference's work, but its third report() is not a JobReport.
    ("invalid_reports", "tests.e2e.test_garbage_claims:garbage_once", "baseline", "fail"),
    # It takes the 503 as a definite failure and says "failed", truthfully: but the work was due.
    ("abandoned_jobs", "mutant:unknown-is-failure", "draft-503-before-write", "fail"),
    # The mutant gives up after the first 503, so the second scheduled one is not reached: coverage by
    # default (abandoned_jobs above catches the giving up), unknown with --strict-coverage.
    ("faults_fired", "mutant:unknown-is-failure", "draft-503-before-write", "unknown"),
    # "Never twice" for a workload of one's own: the article, its posts mapped to a kind of effect no
    # named checker judges ("note"); the blind retrier's second draft is caught all the same.
    ("duplicate_effects", "mutant:blind-retry", "lost-draft-response", "fail"),
]
STRICT = {"faults_fired"}  # the cases run with --strict-coverage (DH_STRICT_COVERAGE=1)


def test_every_checker_has_a_case() -> None:
    assert sorted(c for c, *_ in CASES) == sorted(checker_names())


@pytest.mark.parametrize(("driver", "checker", "candidate", "scenario", "verdict"),
                         [driver_param(d, *case, id=case[0]) for d in DRIVERS for case in CASES])
def test_checker_catches_its_bug(driver: str, checker: str, candidate: str, scenario: str, verdict: str,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    if checker in STRICT:
        monkeypatch.setenv("DH_STRICT_COVERAGE", "1")
    if checker == "duplicate_effects":
        _article_with_notes(monkeypatch)
    doc = run_scenario(load_scenario(REPO / "durable_harness" / "scenarios" / f"{scenario}.yaml"), candidate)
    result = next(c for c in doc["checkers"] if c["name"] == checker)
    assert result["verdict"] == verdict, f"{checker} on {candidate}/{scenario}: {result['because']}"
    assert result["because"]
    assert result["witnesses"], f"{checker} did not pass, without a witness"


def _article_with_notes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The article workload as a team's own workload would map it: its posts are effects of kind
    ``note`` (no named duplicate checker judges notes; ``duplicate_effects`` does)."""
    import dataclasses

    from durable_harness.harness.workloads import _registry
    from durable_harness.harness.workloads import get_workload

    article = get_workload("article")

    def effects(truth: Any) -> list[Any]:
        return [dataclasses.replace(e, kind="note") if e.kind == "post" else e for e in article.effects(truth)]

    notes = dataclasses.replace(article, effects=effects, creates={"wp_create_draft": "note", "wp_upload_media": "media"})
    monkeypatch.setitem(_registry._WORKLOADS._entries, "article", notes)


def test_a_fault_not_reached_is_coverage_and_the_escape_is_still_caught_by_liveness() -> None:
    """The mutant gives up after the first 503: the fault's second firing is not reached (coverage,
    not unknown), and the liveness checkers say the work that was due was not done."""
    doc = run_scenario(load_scenario(REPO / "durable_harness" / "scenarios" / "draft-503-before-write.yaml"),
                       "mutant:unknown-is-failure")
    fault = doc["faults"][0]
    assert fault["status"] == "not_reached" and fault["fired"] == 1, fault
    assert "fired 1 of 2" in fault["reach"]
    assert doc["coverage"]["fired"] == 1 and doc["coverage"]["scheduled"] == 2 and doc["coverage"]["not_reached"]
    verdicts = {c["name"]: c["verdict"] for c in doc["checkers"]}
    assert verdicts["faults_fired"] == "pass" and verdicts["abandoned_jobs"] == "fail"
    assert doc["exit_code"] == 2


def test_a_candidate_that_does_nothing_meets_no_fault_and_is_not_live() -> None:
    """An idle candidate never creates the draft whose response the fault would lose: not reached,
    and the run is a liveness failure, never a pass."""
    doc = run_scenario(load_scenario(REPO / "durable_harness" / "scenarios" / "lost-draft-response.yaml"),
                       "test_runs:idle")
    assert doc["faults"][0]["status"] in ("not_reached", "not_exercised")
    assert doc["liveness"] == "fail" and doc["exit_code"] == 2
