"""Guided exploration end to end: a forked instance says which lines of its candidate's code it ran
(and the history is the same as without it), a process candidate's reach is the shape of what it
did, and the guided search keeps the plans that reached something new and is reproducible."""

from __future__ import annotations

from pathlib import Path

import pytest

from durable_harness.harness._run import run_once
from durable_harness.harness.explore import Plan, explore
from durable_harness.harness.explore._plans import plan_scenario
from durable_harness.harness.explore._pool import run_plan
from tests.e2e._processes import REFERENCE

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

LOST_DRAFT = Plan("article", ({"kind": "lose_response", "at": {"service": "wordpress", "target": "create:article"}},), {})


def test_a_forked_instance_reports_its_lines_and_the_run_is_unchanged() -> None:
    doc = run_plan(LOST_DRAFT, "mutant:blind-retry", 7)
    assert doc is not None
    lines = [r for r in doc["reach"] if r.startswith("line:")]
    assert len(lines) > 200 and {r.split(":")[1].split("/")[0] for r in lines} == {"reference", "mutants"}
    assert any(r.startswith("line:reference/_tools.py:") for r in lines)  # the candidates' code, never the harness's
    assert {"req:wordpress POST /wp/v2/posts -> info 201", "fault:lose_response:after:201",
            "op:wp_create_draft:CONFIRMED", "state:awaiting_approval/needs_human"} <= set(doc["reach"])
    plain, _ = run_once(plan_scenario(LOST_DRAFT, "explore-article"), "mutant:blind-retry", 7)
    assert plain["history"]["digest"] == doc["history"]["digest"] and plain["verdict"] == doc["verdict"]


def test_a_process_candidates_reach_is_the_shape_of_what_it_did() -> None:
    doc = run_plan(Plan("article", (), {}), f"cmd:{REFERENCE}", 7)
    assert doc is not None and doc["verdict"] == "pass", doc.get("error")
    assert doc["reach"] and not any(r.startswith("line:") for r in doc["reach"])
    assert "state:awaiting_approval/needs_human" in doc["reach"]


def test_the_guided_search_keeps_what_reached_something_new_and_replays_from_its_seed() -> None:
    runs = [explore("reference", "article", seed=5, budget_s=240, max_plans=6, corpus=False, actions=False,
                    kinds=["http_error", "lose_response"], guided=True) for _ in range(2)]
    assert runs[0].finding is None and runs[0].guided
    assert runs[0].reached_lines > 200 and runs[0].reached > runs[0].reached_lines >= 1
    assert 1 <= runs[0].reaching_plans <= runs[0].plans_run
    assert (runs[0].reached, runs[0].reaching_plans, runs[0].kinds_tried) == (
        runs[1].reached, runs[1].reaching_plans, runs[1].kinds_tried)
    unguided = explore("reference", "article", seed=5, budget_s=240, max_plans=3, corpus=False, actions=False,
                       kinds=["http_error"], guided=False)
    assert not unguided.guided and unguided.reached == 0 and unguided.plans_run == 3


def test_the_exploration_report_says_whether_it_was_guided(tmp_path: Path) -> None:
    from durable_harness.harness.explore import coverage_lines

    found = explore("reference", "article", seed=5, budget_s=240, max_plans=2, corpus=False, actions=False,
                    kinds=["http_error"], guided=True)
    assert any(line.startswith("guided: ") and "lines of the candidate's code" in line for line in coverage_lines(found))
