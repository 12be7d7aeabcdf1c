"""Plans as the explorer holds them: the catalogue's scenarios read back as plans, their variations,
the simplifications a shrink tries, and the requirements of people's actions."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from durable_harness.harness import load_scenario
from durable_harness.harness.explore import catalogue_plans, plan_scenario
from durable_harness.harness.explore._plans import Plan, plan_raw, simpler
from durable_harness.harness.explore._strategies import random_variation, with_requirements
from durable_harness.harness.scenario import ScenarioError, catalogue_dir

ARTICLE = catalogue_plans(catalogue_dir(), "article")
CODING = catalogue_plans(catalogue_dir(), "coding")


def test_every_catalogue_scenario_of_a_workload_is_a_plan_but_sweeps_and_network_ones() -> None:
    files = {p.stem for p in catalogue_dir().glob("*.yaml")}
    plans = {p.origin for p in ARTICLE + CODING}
    assert plans <= files and "restart-at-every-io-point" not in plans and "baseline" in plans
    assert len(plans) == len(files) - 1  # the sweep; the network scenarios live in a folder of their own


@pytest.mark.parametrize("plan", ARTICLE + CODING, ids=lambda p: p.origin)
def test_a_catalogue_plan_builds_the_scenario_its_file_states(plan: Plan) -> None:
    written = load_scenario(catalogue_dir() / f"{plan.origin}.yaml")
    built = plan_scenario(plan, "explored")
    assert (built.faults, built.actions, built.workers) == (written.faults, written.actions, written.workers)
    assert (dict(built.workload.params), {k: dict(v) for k, v in built.services.items()}) == (
        dict(written.workload.params), {k: dict(v) for k, v in written.services.items()})
    assert built.expect.outcome == "from_world"


def test_a_gentle_variation_keeps_the_entries_and_changes_the_world() -> None:
    rng = random.Random(7)
    changed = 0
    for plan in ARTICLE:
        varied = random_variation(plan, rng, gentle=True)
        assert varied.entries == plan.entries and varied.origin == plan.origin
        changed += varied.key() != plan.key()
    assert changed >= len(ARTICLE) - 2  # a draw may set an option to the value it has


def test_variations_build_or_are_refused_as_a_file_would_be() -> None:
    rng = random.Random(3)
    built = refused = 0
    for plan in ARTICLE * 3:
        try:
            plan_scenario(random_variation(plan, rng), "explored")
            built += 1
        except ScenarioError:
            refused += 1
    assert built > 2 * refused


def test_each_simplification_is_smaller() -> None:
    plan = next(p for p in ARTICLE if p.origin == "cancel-while-draft-in-flight")
    busy = Plan(plan.workload, plan.entries, {"params": {"images": 2}, "services": {"wordpress": {"auth_mode": "early"}},
                                              "workers": 2}, plan.origin)
    steps = list(simpler(busy))
    assert steps and all(s.size() < busy.size() for s in steps)
    assert any(len(s.entries) == len(busy.entries) - 1 for s in steps)
    assert any(s.world.get("workers", 1) == 1 for s in steps)


def test_a_revocation_comes_with_the_approval_it_revokes() -> None:
    revoke = {"kind": "revoke_approval", "when": "approval_granted"}
    assert with_requirements((revoke,)) == ({"kind": "approve", "when": "article_finished"}, revoke)
    approve = {"kind": "approve", "at_s": 5}
    assert with_requirements((approve, revoke)) == (approve, revoke)


def test_an_exported_plan_carries_its_seed_and_world(tmp_path: Path) -> None:
    plan = Plan("article", ({"kind": "crash", "at": {"service": "wordpress", "method": "POST", "route": "/wp/v2/media"},
                             "point": "after"},), {"params": {"images": 1}, "workers": 1})
    raw = plan_raw(plan, "found-x", seed=42)
    assert raw["seed"] == 42 and raw["workload"] == {"kind": "article", "params": {"images": 1}} and "workers" not in raw
    assert raw["expect"]["outcome"] == "from_world" and raw["must_catch"] == []
