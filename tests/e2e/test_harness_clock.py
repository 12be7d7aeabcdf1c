"""A candidate process that takes its time from the harness (``"clock": "harness"``) has its idle
time skipped: the bundled reference (``--clock harness``) and the node example say so, pass, and
skip; the same runs without the harness's clock (``DH_HARNESS_CLOCK=0``) keep compressed real time
and the same verdict; a candidate that never says so (the reference by default) is never skipped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness import load_scenario, run_scenario
from tests.e2e._processes import NODE_EXAMPLE, REFERENCE, REPO, marked

pytestmark = pytest.mark.e2e  # end-to-end runs of processes: `make test` runs them

SCENARIOS = REPO / "durable_harness" / "scenarios"
ON_HARNESS_CLOCK = f"{REFERENCE} --clock harness"
ON_REAL_TIME = REFERENCE  # its default


def _run(scenario: str, candidate: str, out: Path) -> dict[str, Any]:
    doc = run_scenario(load_scenario(SCENARIOS / f"{scenario}.yaml"), candidate, None, out)
    assert doc["verdict"] == "pass", json.dumps([c for c in doc["checkers"] if c["verdict"] != "pass"]) + str(doc["error"])
    return doc


def _started(out: Path) -> list[dict[str, Any]]:
    history = [json.loads(line) for line in (out / "history.jsonl").read_text().splitlines()]
    return [e["data"]["started"] for e in history if "started" in e["data"]]


@pytest.mark.parametrize("scenario", ["baseline", "lost-draft-response"])
def test_the_reference_on_the_harness_clock_skips_its_idle_time(scenario: str, tmp_path: Path, mark: str) -> None:
    doc = _run(scenario, marked(ON_HARNESS_CLOCK, mark), tmp_path)
    assert doc["timings"]["clock"] == "harness" and doc["timings"]["skipped_s"] > 0, doc["timings"]
    assert all(s.get("clock") == "harness" for s in _started(tmp_path))
    assert doc["history"]["entries"] > 0 and doc["timings"]["virtual_s"] >= doc["timings"]["skipped_s"]


def test_without_the_harness_clock_the_same_run_keeps_real_time(tmp_path: Path, mark: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DH_HARNESS_CLOCK", "0")
    doc = _run("baseline", marked(ON_HARNESS_CLOCK, mark), tmp_path)
    assert (doc["timings"]["clock"], doc["timings"]["skipped_s"]) == ("real", 0.0)
    assert all("clock" not in s for s in _started(tmp_path))


def test_a_candidate_that_does_not_say_so_keeps_real_time(tmp_path: Path, mark: str) -> None:
    doc = _run("baseline", marked(ON_REAL_TIME, mark), tmp_path)
    assert (doc["timings"]["clock"], doc["timings"]["skipped_s"]) == ("real", 0.0)


def test_the_node_example_takes_its_time_from_the_harness(tmp_path: Path, mark: str) -> None:
    doc = _run("baseline", marked(NODE_EXAMPLE, mark), tmp_path)
    assert doc["timings"]["clock"] == "harness" and doc["timings"]["skipped_s"] > 0, doc["timings"]
