"""Plans the explorer found against the reference, kept as regressions (``scenarios/explored``): each
was a false alarm of the harness or a bug of the reference, and each is now passed by the reference;
where a mutant's bug is what the plan reaches, the mutant still fails it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness import load_scenario, load_scenarios, run_scenario
from durable_harness.harness.scenario import ScenarioError

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

HERE = Path(__file__).parent / "scenarios" / "explored"
EXPLORED = load_scenarios([HERE])


@pytest.mark.parametrize("scenario", EXPLORED, ids=lambda s: s.id)
def test_the_reference_passes_what_exploration_found(scenario: Any) -> None:
    doc = run_scenario(scenario, "reference")
    failing = [(c["name"], c["because"]) for c in doc["checkers"] if c["verdict"] != "pass"]
    assert doc["verdict"] == "pass", f"{failing}\n{doc['reproduce']}"


@pytest.mark.parametrize(("scenario", "mutant"), [(s, m) for s in EXPLORED for m in s.must_catch],
                         ids=lambda v: getattr(v, "id", v))
def test_what_exploration_found_still_catches_its_mutants(scenario: Any, mutant: str) -> None:
    assert run_scenario(scenario, mutant)["verdict"] == "fail"


def test_a_job_given_up_after_its_work_was_done_awaits_approval() -> None:
    doc = run_scenario(load_scenario(HERE / "crash-after-every-tool-result.yaml"), "reference")
    assert doc["timings"]["restarts"] >= 5  # the resume budget did run out
    assert doc["outcome"]["claimed"] == doc["outcome"]["truth"] == "needs_human"


def test_the_quiesce_outlasts_a_fault_held_to_the_deadline() -> None:
    scenario = load_scenario(HERE / "seo-response-lost-until-the-deadline.yaml")
    doc = run_scenario(scenario, "reference")
    assert scenario.expect.deadline_s < doc["timings"]["virtual_s"] <= scenario.expect.deadline_s + scenario.expect.quiesce_s
    assert doc["claims"]["outcome"] == "needs_human"


def test_a_refused_acceptance_is_not_a_delivery_and_a_lost_session_does_not_undo_one() -> None:
    refused = run_scenario(load_scenario(HERE / "api-key-revoked-with-the-delivery-in-flight.yaml"), "reference")
    assert refused["claims"]["checkpoint"]["phase"] != "delivered" and refused["claims"]["outcome"] == "needs_human"
    gone = run_scenario(load_scenario(HERE / "sandbox-gone-after-the-delivery.yaml"), "reference")
    assert gone["outcome"]["claimed"] == gone["outcome"]["truth"] == "completed"


def test_a_killed_workers_late_write_without_fencing_is_no_scenario(tmp_path: Path) -> None:
    """Only the resource can refuse a dead writer's delayed write: without a fencing gateway no correct
    control plane could pass, so the file is refused, naming the field and what to give instead."""
    path = tmp_path / "late.yaml"
    path.write_text("""id: late
title: A late write
covers: a dead writer
workers: 2
workload: {kind: article}
faults:
  - kind: pause_worker
    at: {service: wordpress, method: POST, route: /wp/v2/posts, nth: 1}
    kill: true
expect: {outcome: from_world}
must_catch: []
""")
    with pytest.raises(ScenarioError, match=r"faults\[0\]\.kill: .*fencing: header"):
        load_scenario(path)
    path.write_text(path.read_text().replace("workers: 2\n", "workers: 2\nservices: {wordpress: {fencing: header}}\n"))
    assert load_scenario(path).workers == 2


def test_a_403_from_the_sessions_api_ends_the_job_as_the_world_shows_it() -> None:
    doc = run_scenario(load_scenario(HERE / "sessions-listing-forbidden.yaml"), "reference")
    assert doc["outcome"]["claimed"] == doc["outcome"]["truth"] == "failed"


def test_a_credential_the_work_never_needs_does_not_make_it_wait_for_a_human() -> None:
    doc = run_scenario(load_scenario(HERE / "wordpress-revoked-in-a-coding-job.yaml"), "reference")
    assert doc["outcome"]["claimed"] == doc["outcome"]["truth"] == "failed"


def test_a_refused_key_does_not_undo_an_acknowledged_cancellation() -> None:
    doc = run_scenario(load_scenario(HERE / "key-revoked-as-the-user-cancels.yaml"), "reference")
    assert doc["outcome"]["claimed"] == doc["outcome"]["truth"] == "cancelled"
