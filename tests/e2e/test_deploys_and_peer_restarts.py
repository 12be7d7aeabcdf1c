"""Two conditions real teams meet, in both drivers: a deploy in the middle of a job (the next version
must take up the pending work), and a worker that restarts while another, alive, holds the job."""

from __future__ import annotations

import shlex
from typing import Any

import pytest

from durable_harness.harness import load_scenario, run_scenario
from durable_harness.harness._realtime import TIME_SCALE_ENV
from durable_harness.harness._run import NEXT_ENV
from tests.e2e._processes import REFERENCE, REPO, kill_marked, marked, new_mark, until_reached, wait_gone

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

DEPLOY = load_scenario(REPO / "durable_harness" / "scenarios" / "deploy-mid-job.yaml")
PEER = load_scenario(REPO / "durable_harness" / "scenarios" / "peer-restarts-mid-job.yaml")
STRANDS = "tests.candidates.deploys:strands_pending_work"


def _deploys(history_doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in history_doc["faults"] if f["kind"] == "deploy"]


def test_a_deploy_mid_job_is_taken_up_by_the_next_version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(NEXT_ENV, "tests.candidates.deploys:next_version")
    doc = run_scenario(DEPLOY, "reference")
    assert doc["verdict"] == "pass", doc["checkers"]
    assert [d["status"] for d in _deploys(doc)] == ["fired"]
    assert doc["candidate"]["next"] == "tests.candidates.deploys:next_version"
    assert "--candidate-next tests.candidates.deploys:next_version" in doc["reproduce"]


def test_a_next_version_that_strands_the_pending_work_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(NEXT_ENV, STRANDS)
    doc = run_scenario(DEPLOY, "reference")
    verdicts = {c["name"]: c["verdict"] for c in doc["checkers"]}
    assert doc["verdict"] == "fail" and verdicts["abandoned_jobs"] == "fail", verdicts
    assert f"--candidate-next {STRANDS}" in doc["reproduce"]


def test_a_deploy_without_a_next_version_restarts_the_same_candidate() -> None:
    doc = run_scenario(DEPLOY, "reference")
    assert doc["verdict"] == "pass" and [d["status"] for d in _deploys(doc)] == ["fired"]
    assert "next" not in doc["candidate"] and "--candidate-next" not in doc["reproduce"]


def test_a_restarted_peer_that_takes_over_live_work_is_caught() -> None:
    assert run_scenario(PEER, "reference")["verdict"] == "pass"
    bad = run_scenario(PEER, "mutant:recover-all-on-start")
    assert bad["verdict"] == "fail" and bad["faults"][0]["status"] == "fired"
    assert bad["faults"][0]["evidence"][0]["killed"] == ["worker-2"] or bad["faults"][0]["evidence"][0]["killed"]


def _as_process(scenario: Any, command: str, **env: str) -> dict[str, Any]:
    mark = new_mark()
    try:
        return run_scenario(scenario, marked(command, mark))
    finally:
        left = wait_gone(mark)
        kill_marked(mark)
        assert left == [], f"processes left behind: {left}"


@pytest.mark.slow
def test_a_deploy_as_processes_stops_the_old_version_and_starts_the_next(monkeypatch: pytest.MonkeyPatch) -> None:
    mark = new_mark()
    monkeypatch.setenv(NEXT_ENV, marked(f"{REFERENCE} --candidate {STRANDS}", mark))
    try:
        bad = _as_process(DEPLOY, REFERENCE)
    finally:
        kill_marked(mark)
    assert bad["verdict"] == "fail" and [d["status"] for d in _deploys(bad)] == ["fired"], bad["checkers"]
    monkeypatch.delenv(NEXT_ENV)
    good = _as_process(DEPLOY, REFERENCE)
    assert good["verdict"] == "pass", good["checkers"]


@pytest.mark.slow
def test_a_restarted_peer_process_that_takes_over_live_work_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """At a time scale where the restarted peer's start (real seconds) is back before the job ends (a
    lower one on a machine too busy for that): the condition is tested (fired, not "not reached") for
    both, and the mutant is caught."""
    good = until_reached(lambda _: _as_process(PEER, REFERENCE), monkeypatch)
    assert good["verdict"] == "pass" and [f["status"] for f in good["faults"]] == ["fired"], good["faults"]
    bad = until_reached(lambda _: _as_process(PEER, f"{REFERENCE} --candidate mutant:recover-all-on-start"),
                        monkeypatch)
    assert [f["status"] for f in bad["faults"]] == ["fired"], bad["faults"]
    assert bad["verdict"] == "fail", bad["checkers"]


@pytest.mark.slow
def test_a_restarted_peer_back_after_the_job_ended_is_not_reached_never_a_quiet_pass(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A start that takes longer than the job had left (6 real seconds more at scale 20: two minutes of
    the run's time, while the job, its thoughts slowed to half the lease meanwhile, has about one
    left) comes back to nothing to take over: the fault says so (not reached, with the times), and
    the mutant's pass is not counted as a test of the condition."""
    monkeypatch.setenv(TIME_SCALE_ENV, "20")
    slow = f"sh -c {shlex.quote(f'sleep 6; exec {REFERENCE} --candidate mutant:recover-all-on-start')}"
    doc = _as_process(PEER, slow)
    fault = doc["faults"][0]
    assert fault["status"] == "not_reached" and fault["fired"] == 0, fault
    assert "came back at" in fault["reach"] and "after the job's last write" in fault["reach"], fault["reach"]
    assert "DURABLE_HARNESS_TIME_SCALE" in fault["reach"]
    assert doc["coverage"]["fired"] == 0 and doc["coverage"]["not_reached"], doc["coverage"]
