"""Every checker fails on a control plane that has the bug it looks for (not only on hand-made
records): one known-bad candidate, or a test candidate, per checker, in a real run."""

from __future__ import annotations

from pathlib import Path

import pytest

from durable_harness.harness import load_scenario, run_scenario
from durable_harness.harness.checkers import checker_names

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
    # The mutant gives up after the first 503, so the second scheduled one never fires: unknown.
    ("faults_fired", "mutant:unknown-is-failure", "draft-503-before-write", "unknown"),
]


def test_every_checker_has_a_case() -> None:
    assert sorted(c for c, *_ in CASES) == checker_names()


@pytest.mark.parametrize(("checker", "candidate", "scenario", "verdict"), CASES, ids=[c for c, *_ in CASES])
def test_checker_catches_its_bug(checker: str, candidate: str, scenario: str, verdict: str) -> None:
    doc = run_scenario(load_scenario(REPO / "durable_harness" / "scenarios" / f"{scenario}.yaml"), candidate)
    result = next(c for c in doc["checkers"] if c["name"] == checker)
    assert result["verdict"] == verdict, f"{checker} on {candidate}/{scenario}: {result['because']}"
    assert result["because"]
    assert result["witnesses"], f"{checker} did not pass, without a witness"
