"""A crash point past the end of its own run: in real time (a process candidate) the run's requests
vary in number, so such a point is *not reached* and the run passes as the clean run it was (a
correct candidate is never unknown for it); in-process the run up to the crash is the clean run, so
the same point is a crash that never fired: unknown, which fails closed."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness import load_scenario
from durable_harness.harness._sweep import SweepPoint, run_point
from durable_harness.harness._sweep_scenario import _fold
from tests.e2e._processes import REFERENCE, kill_marked, marked, new_mark, wait_gone

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

BASE = load_scenario(Path(__file__).parents[2] / "durable_harness" / "scenarios" / "baseline.yaml")
PAST = SweepPoint(10_000, "after", "request 10000")  # no run of the baseline makes that many requests


def _crash(doc: dict[str, Any]) -> dict[str, Any]:
    [crash] = doc["faults"]
    return crash


def test_in_process_a_point_past_the_end_is_unknown() -> None:
    doc = run_point(BASE, PAST, "reference")
    assert _crash(doc)["status"] == "unfired" and doc["verdict"] == "unknown" and doc["exit_code"] == 2
    fired = next(c for c in doc["checkers"] if c["name"] == "faults_fired")
    assert fired["verdict"] == "unknown" and "never fired" in fired["because"]


def test_in_real_time_a_point_past_the_end_is_not_reached_and_passes() -> None:
    mark = new_mark()
    try:
        doc = run_point(BASE, PAST, marked(REFERENCE, mark))
    finally:
        left = wait_gone(mark)
        kill_marked(mark)
    crash = _crash(doc)
    assert (crash["status"], crash["fired"]) == ("not_reached", 0) and 0 < crash["seen"] < PAST.k
    assert (doc["verdict"], doc["exit_code"], doc["error"]) == ("pass", 0, None), doc["checkers"]
    fired = next(c for c in doc["checkers"] if c["name"] == "faults_fired")
    assert "not reached" in fired["because"] and f"({crash['seen']} in all)" in fired["because"]
    assert left == []
    # Folded into a sweep beside a point that failed, it is named, and the failure still decides.
    failed = dataclasses.replace(PAST, k=1, point="before")
    bad = {**doc, "verdict": "fail", "safety": "fail", "exit_code": 1,
           "faults": [{**crash, "status": "fired", "fired": 1, "at": "* *.* #1"}]}
    folded = _fold(BASE, doc, [(failed, bad), (PAST, doc)])
    assert folded["sweep"] == {"points": 2, "passed": 1, "failing": ["1:before"], "not_reached": ["10000:after"]}
    assert (folded["verdict"], folded["exit_code"]) == ("fail", 1)
