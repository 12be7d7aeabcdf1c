"""Several workers on one database (``workers: 2``): seeded interleaving, pauses that hold a
worker's request while the others run, kills that release its locks, and what the run shows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness import load_scenario
from durable_harness.harness._run import run_once

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

SCENARIOS = Path(__file__).parents[2] / "durable_harness" / "scenarios"
PAUSES = ("lease-holder-paused-mid-write", "lease-holder-paused-mid-write-fenced", "lease-holder-killed-write-delayed",
          "lease-holder-killed")


def run(name: str, candidate: str = "reference", seed: int | None = None) -> tuple[dict[str, Any], Any]:
    return run_once(load_scenario(SCENARIOS / f"{name}.yaml"), candidate, seed)


def test_both_workers_run_and_the_same_seed_gives_the_same_interleaving() -> None:
    doc, history = run("two-workers-one-job")
    assert doc["verdict"] == "pass"
    assert {e.process for e in history.of_type("report")} == {"worker-1", "worker-2"}  # both were stepped
    assert len({e.process for e in history.of_type("invoke") if e.process.startswith("worker-")}) == 1  # one worked
    again, _ = run("two-workers-one-job")
    assert again["history"]["digest"] == doc["history"]["digest"]
    first = {next(e.process for e in run("two-workers-one-job", seed=s)[1].of_type("invoke")
                  if e.process.startswith("worker-")) for s in range(1, 8)}
    assert first == {"worker-1", "worker-2"}  # the seed decides who goes first


@pytest.mark.parametrize("name", PAUSES)
def test_a_paused_worker_makes_no_request_until_it_resumes(name: str) -> None:
    doc, history = run(name)
    assert doc["verdict"] == "pass", doc["reproduce"]
    notes = [e for e in history.of_type("note") if e.process == "nemesis"]
    pause, resume = (next(e for e in notes if key in e.data) for key in ("pause", "resume"))
    paused = pause.data["pause"]
    between = [e for e in history if pause.index < e.index < resume.index]
    assert not [e for e in between if e.type == "invoke" and e.process == paused]
    others = [e for e in between if e.type == "invoke" and e.process != paused and e.process.startswith("worker-")]
    if pause.data["kill"]:  # its locks died with it: the other took the job over once the lease ran out
        assert others and min(e.time_s for e in others) >= pause.time_s + 10.0
    else:  # frozen mid-write, it still holds the writer lock: the other may not take over
        assert not [e for e in others if e.data.get("method") != "GET"]
    assert resume.time_s - pause.time_s == pytest.approx(pause.data["for_s"])
    assert pause.data["for_s"] == pytest.approx(2 * 10.0 + 1.0)  # twice the reference's declared lease, plus 1 s


@pytest.mark.parametrize("name", PAUSES)
def test_a_candidate_in_its_own_process_gives_the_in_process_history(name: str, tmp_path: Path) -> None:
    forked, _ = run(name)
    # In-process in a fresh interpreter: in a test worker's own process, module state left by the
    # in-process runs of earlier tests (the old driver's known weakness) would be in this one too.
    subprocess.run([sys.executable, "-m", "durable_harness.harness.cli", "run", "--scenario", str(SCENARIOS / f"{name}.yaml"),
                    "--report", str(tmp_path / "r")], env={**os.environ, "DH_IN_PROCESS": "1"}, capture_output=True,
                   timeout=300, check=False)
    inside = json.loads((tmp_path / "r" / name / "run.json").read_text())
    assert forked["history"]["digest"] == inside["history"]["digest"] and forked["verdict"] == inside["verdict"]


def test_a_killed_workers_late_write_is_refused_by_its_token_and_caught_without_one() -> None:
    doc, history = run("lease-holder-killed-write-delayed")
    late = next(e for e in history.of_type("fault") if e.data.get("kind") == "pause_worker")
    done = next(d for i, d in history.operations() if i.op == late.data["op"])
    assert done is not None and done.data["committed"] is False and doc["verdict"] == "pass"
    assert doc["truth"]["wordpress"]["fencing"]["refused"] >= 1
    bad, _ = run("lease-holder-killed-write-delayed", "mutant:no-fencing-token")
    failing = {c["name"]: c for c in bad["checkers"] if c["verdict"] == "fail"}
    assert "unauthorized_calls" in failing and "stale writer" in failing["unauthorized_calls"]["because"]


def test_an_error_of_the_harness_during_a_pause_is_exit_3_never_the_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    from durable_harness.harness import _workers

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("a bug in the pause")

    monkeypatch.setattr(_workers.Workers, "hold", broken)
    doc, _ = run("lease-holder-paused-mid-write")
    assert doc["exit_code"] == 3 and doc["error"]["kind"] == "harness" and "pausing a worker" in doc["error"]["message"]
    assert doc["candidate_errors"] == []
