"""Exploration: Hypothesis draws fault plans over the channels a candidate uses, finds a plan that
breaks a mutant, shrinks it, and exports it as a scenario that fails the mutant and passes the
reference; the same seed gives the same search."""

from __future__ import annotations

from pathlib import Path

import pytest

from durable_harness.harness import load_scenario, run_scenario
from durable_harness.harness.explore import coverage_lines, explore, export

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)


@pytest.mark.slow  # a search of up to 60 runs, then a shrink
def test_a_lost_write_is_found_for_blind_retry_shrunk_and_exported(tmp_path: Path) -> None:
    found = explore("mutant:blind-retry", "article", seed=3, budget_s=240, max_plans=60, kinds=["lose_response"],
                    actions=False, database=tmp_path / "db")
    assert found.finding is not None, "\n".join(coverage_lines(found))
    assert found.finding.counter in ("duplicate_drafts", "duplicate_media", "ledger_mismatches")
    assert len(found.finding.plan.entries) == 1 and found.finding.plan.entries[0]["kind"] == "lose_response"
    path = export(found, found.finding, tmp_path / "out")
    scenario = load_scenario(path)
    assert scenario.must_catch == () and found.finding.counter in scenario.covers
    assert run_scenario(scenario, "mutant:blind-retry")["verdict"] == "fail"
    assert run_scenario(scenario, "reference")["verdict"] == "pass"
    again = explore("mutant:blind-retry", "article", seed=3, budget_s=240, max_plans=60, kinds=["lose_response"],
                    actions=False, database=tmp_path / "db")
    assert again.finding is not None and again.plans_run <= found.plans_run  # the database replays it at once
    assert again.finding.plan.key() == found.finding.plan.key()


def test_the_same_seed_gives_the_same_plans(tmp_path: Path) -> None:
    runs = [explore("reference", "article", seed=11, budget_s=240, max_plans=4, kinds=["http_error", "lose_response"],
                    actions=False) for _ in range(2)]
    assert runs[0].finding is None and runs[1].finding is None
    assert runs[0].kinds_tried == runs[1].kinds_tried and runs[0].channels == runs[1].channels
    assert runs[0].plans_run == runs[1].plans_run == 4
