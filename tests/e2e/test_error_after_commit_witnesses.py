"""A create the service committed and a fault answered with an error is the witness of the duplicate
it led to: the history keeps the id the service gave (``withheld``), and the witness says what the
client got instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from durable_harness.harness import load_scenario, run_scenario

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

SCENARIOS = Path(__file__).parents[2] / "durable_harness" / "scenarios"


@pytest.mark.parametrize(("scenario", "counter", "status"), [
    ("draft-502-after-commit", "duplicate_drafts", 502), ("media-500-after-commit", "duplicate_media", 500)])
def test_the_create_answered_with_an_error_after_its_commit_is_a_witness(scenario: str, counter: str, status: int) -> None:
    doc = run_scenario(load_scenario(SCENARIOS / f"{scenario}.yaml"), "mutant:error-means-not-applied")
    failed = next(c for c in doc["checkers"] if c["name"] == counter)
    assert failed["verdict"] == "fail", failed
    summaries = [w["summary"] for w in failed["witnesses"]]
    assert len(summaries) == 2, summaries
    assert f"answered 201, and the client got {status} instead (an error after the commit)" in summaries[0]
