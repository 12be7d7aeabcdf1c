"""Runs in-process: determinism, secrets, crashes of the candidate, and the self-test matrix."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from durable_harness.candidates.mutants import mutant_names
from durable_harness.harness import load_scenario, load_scenarios, run_scenario
from durable_harness.harness._sweep import sweep
from tests.e2e._drivers import DRIVERS, driver_param, drivers_for
from tests.e2e._shared_runs import SharedRuns

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

REPO = Path(__file__).parents[2]
CATALOGUE = load_scenarios([REPO / "durable_harness" / "scenarios"])


def test_same_seed_same_history_digest() -> None:
    s = load_scenario(REPO / "durable_harness" / "scenarios" / "lost-media-response-2.yaml")
    a = run_scenario(s, "mutant:blind-retry", 11)
    b = run_scenario(s, "mutant:blind-retry", 11)
    assert a["history"]["digest"] == b["history"]["digest"]
    assert a == b


def test_secrets_never_reach_the_outputs(tmp_path: Path) -> None:
    from durable_harness.harness._world import World

    s = load_scenario(REPO / "durable_harness" / "scenarios" / "lost-draft-response.yaml")
    world = World(s, s.default_seed, tmp_path)
    secrets = world.secrets
    world.close()
    run_scenario(s, "reference", None, tmp_path / "out")
    for path in (tmp_path / "out").iterdir():
        if path.suffix in (".json", ".jsonl"):
            text = path.read_text()
            for secret in secrets:
                assert secret not in text, f"{path.name} holds a secret"


class Exploding:
    def __init__(self, env: Any) -> None:
        self.env = env

    def submit(self, job: Any) -> Any:
        return {"accepted": True}

    def report(self, job_id: str) -> Any:
        return {"job_id": job_id, "outcome": "running", "operations": []}

    def step(self) -> bool:
        raise RuntimeError("boom")


def exploding(env: Any) -> Exploding:
    return Exploding(env)


def broken_factory(env: Any) -> Any:
    raise ImportError("missing dependency")


def test_a_candidate_that_keeps_crashing_gets_a_verdict_not_a_hang() -> None:
    s = load_scenario(REPO / "durable_harness" / "scenarios" / "baseline.yaml")
    doc = run_scenario(s, f"{__name__}:exploding")
    assert doc["exit_code"] == 3 and doc["error"]["kind"] == "candidate"
    assert "still crashing" in doc["error"]["message"] and "boom" in doc["error"]["message"]
    raised = doc["candidate_errors"][0]
    assert (raised["method"], raised["type"], raised["message"]) == ("step", "RuntimeError", "boom")
    assert raised["frames"] == [f"tests/e2e/test_runs.py:{Exploding.step.__code__.co_firstlineno + 1} in step"]


class Idle(Exploding):
    """Never does anything and never settles: a job that hangs."""

    def step(self) -> bool:
        return False


def idle(env: Any) -> Idle:
    return Idle(env)


def test_a_candidate_that_never_settles_is_a_stuck_job_not_a_hang() -> None:
    s = load_scenario(REPO / "durable_harness" / "scenarios" / "baseline.yaml")
    doc = run_scenario(s, f"{__name__}:idle")
    stuck = next(c for c in doc["checkers"] if c["name"] == "stuck_jobs")
    assert stuck["verdict"] == "fail" and doc["liveness"] == "fail" and doc["exit_code"] == 2
    assert doc["timings"]["virtual_s"] <= s.expect.deadline_s + 1


class Spinner(Exploding):
    """Polls the API without end inside one step."""

    def step(self) -> bool:
        while True:
            self.env.http.get(f"{self.env.wordpress_url}/wp-json/wp/v2/posts")


class Sleeper(Exploding):
    """Waits forever on the clock inside one step."""

    def step(self) -> bool:
        while True:
            self.env.clock.sleep(60)


def spinner(env: Any) -> Spinner:
    return Spinner(env)


def sleeper(env: Any) -> Sleeper:
    return Sleeper(env)


def test_a_candidate_that_polls_forever_in_one_step_is_stopped() -> None:
    doc = run_scenario(load_scenario(REPO / "durable_harness" / "scenarios" / "baseline.yaml"), f"{__name__}:spinner")
    assert doc["exit_code"] == 3 and doc["error"]["kind"] == "candidate" and "runaway loop" in doc["error"]["message"]


def test_a_candidate_that_sleeps_forever_is_killed_and_the_job_is_stuck() -> None:
    from durable_harness.harness._run import run_once

    doc, history = run_once(load_scenario(REPO / "durable_harness" / "scenarios" / "baseline.yaml"), f"{__name__}:sleeper")
    assert doc["exit_code"] == 2 and doc["liveness"] == "fail"
    assert any("hard deadline" in str(e.data.get("because")) for e in history.of_type("crash"))


def test_a_scenario_needing_webhooks_says_so_to_a_candidate_without_them() -> None:
    doc = run_scenario(load_scenario(REPO / "durable_harness" / "scenarios" / "forged-webhooks.yaml"), f"{__name__}:idle")
    assert doc["exit_code"] == 3 and doc["error"]["kind"] == "setup" and "capability 'webhooks'" in doc["error"]["message"]


def test_a_candidate_that_cannot_start_is_exit_3() -> None:
    s = load_scenario(REPO / "durable_harness" / "scenarios" / "baseline.yaml")
    doc = run_scenario(s, f"{__name__}:broken_factory")
    assert doc["exit_code"] == 3 and doc["error"]["kind"] == "candidate" and "missing dependency" in doc["error"]["message"]


def _param(scenario: Any, *values: Any) -> Any:
    """A sweep scenario is many runs: it goes with the slow tests."""
    marks = [pytest.mark.slow] if scenario.sweep else []
    return pytest.param(*values, scenario, marks=marks, id="-".join([*map(str, values), scenario.id]))


@pytest.mark.parametrize("scenario", [_param(s) for s in CATALOGUE])
def test_reference_passes_every_scenario(scenario: Any) -> None:
    doc = run_scenario(scenario, "reference")
    failing = [c for c in doc["checkers"] if c["verdict"] != "pass"]
    assert doc["verdict"] == "pass", json.dumps(failing, indent=1) + "\n" + doc["reproduce"]


@pytest.mark.parametrize("mutant", mutant_names())
def test_every_mutant_is_promised_by_some_scenario(mutant: str) -> None:
    assert any(f"mutant:{mutant}" in s.must_catch for s in CATALOGUE), f"mutant:{mutant} is under no must_catch"


def _mutant_run(shared_runs: SharedRuns, mutant: str, scenario: Any) -> dict[str, Any]:
    """A mutant's run of a scenario in the test's driver (the same history at every run of its seed):
    its verdict, exit code and reproduce command, run once for the two tests below."""
    def run() -> dict[str, Any]:
        doc = run_scenario(scenario, f"mutant:{mutant}")
        return {k: doc[k] for k in ("verdict", "exit_code", "reproduce")}

    return shared_runs.once(f"mutant-{mutant}-{scenario.id}", run)  # type: ignore[no-any-return]


@pytest.mark.parametrize(("driver", "mutant", "scenario"), [
    driver_param(d, m.split(":", 1)[1], s, id=f"{m.split(':', 1)[1]}-{s.id}")
    for s in CATALOGUE for m in s.must_catch for d in drivers_for(s)])
def test_every_mutant_is_caught_where_promised(driver: str, mutant: str, scenario: Any, shared_runs: SharedRuns) -> None:
    if scenario.sweep:  # caught at some crash point: the points after the first failing one add nothing here
        base = dataclasses.replace(scenario, sweep=None)
        verdicts = []
        for point, doc in sweep(base, f"mutant:{mutant}"):
            verdicts.append((point.label, doc["verdict"]))
            if doc["verdict"] == "fail":
                return
        pytest.fail(f"mutant:{mutant} escaped every crash point of {scenario.id}: {verdicts}")
    doc = _mutant_run(shared_runs, mutant, scenario)
    assert doc["verdict"] == "fail", f"mutant:{mutant} escaped {scenario.id}: {doc['verdict']} ({doc['reproduce']})"


@pytest.mark.parametrize(("driver", "mutant"), [driver_param(d, m, id=m) for d in DRIVERS for m in mutant_names()])
def test_every_mutant_is_a_safety_failure_somewhere(driver: str, mutant: str, shared_runs: SharedRuns) -> None:
    """Each mutant's bug does harm (exit 1) in at least one scenario that promises to catch it."""
    promised = [s for s in CATALOGUE if f"mutant:{mutant}" in s.must_catch and not s.sweep]
    codes = []
    for scenario in promised:
        codes.append((scenario.id, _mutant_run(shared_runs, mutant, scenario)["exit_code"]))
        if codes[-1][1] == 1:
            return
    pytest.fail(f"mutant:{mutant} is never a safety failure: {codes}")
