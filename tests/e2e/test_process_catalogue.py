"""The catalogue in the process driver (slow): the reference as a process passes, as it does in-process,
every scenario of one worker (``test_workers_process`` runs those of several, as processes on
PostgreSQL, and every mutant they promise to catch), and passes the crash-point sweep's points at
every write and at the first read of each kind; every mutant promised by a scenario of one worker
is caught as a process by every scenario that promises it. The sweep's points are split in four tests
(one clean run finds them for the four), so that pytest-xdist spreads them: in real time, a point
costs seconds.

Mutants run as processes through ``python -m durable_harness.candidates.reference.serve --candidate mutant:NAME``.
Each run's processes are marked and counted: none may outlive its run.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness import load_scenarios, run_scenario
from durable_harness.harness._run import run_once
from durable_harness.harness._sweep import POINTS, SweepPoint, run_point
from durable_harness.harness._webhook_delivery import PROCESS as WEBHOOKS
from tests.e2e._processes import REFERENCE, REPO, kill_marked, marked, new_mark, story, wait_gone
from tests.e2e._shared_runs import SharedRuns

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

# The catalogue's scenarios of one worker (the others are test_workers_process's: it runs each as processes
# on a scratch PostgreSQL database, with every mutant it promises to catch).
CATALOGUE = [s for s in load_scenarios([REPO / "durable_harness" / "scenarios"]) if s.workers == 1]


def as_process(command: str, scenario: Any, out: Path | None = None) -> dict[str, Any]:
    mark = new_mark()
    try:
        return run_scenario(scenario, marked(command, mark), None, out)
    finally:
        left = wait_gone(mark)
        kill_marked(mark)
        assert left == [], f"processes left behind: {left}"


SWEEP_PARTS = 4


@pytest.mark.slow
@pytest.mark.parametrize("scenario", [s for s in CATALOGUE if not s.sweep], ids=lambda s: s.id)
def test_the_reference_as_a_process_passes_as_in_process(scenario: Any, tmp_path: Path) -> None:
    """In-process the reference passes every scenario (``test_runs`` asserts it, scenario by scenario):
    so does it as a process, with no error of the harness. A failure carries the run's story (real
    time cannot be replayed)."""
    doc = as_process(REFERENCE, scenario, tmp_path)
    failing = [(c["name"], c["because"]) for c in doc["checkers"] if c["verdict"] != "pass"]
    assert (doc["verdict"], doc["error"]) == ("pass", None), f"{failing}\n{doc['reproduce']}{story(tmp_path)}"


@pytest.mark.slow
@pytest.mark.parametrize("scenario", [s for s in CATALOGUE if s.sweep], ids=lambda s: s.id)
@pytest.mark.parametrize("part", range(SWEEP_PARTS), ids=lambda n: f"part{n + 1}of{SWEEP_PARTS}")
def test_the_reference_as_a_process_passes_every_crash_point(scenario: Any, part: int, shared_runs: SharedRuns) -> None:
    """The in-process sweep passes every point (``test_runs``); as a process, so does every point it
    reaches of every write (both sides) and of the first request of each kind of read: a crash is a
    SIGKILL there, whatever the request, and a write is where a restart can do harm twice. (Every
    point, in real time, costs about five seconds each: the in-process sweep is the exhaustive one.)
    In real time a run's requests vary a little in number (how often a job awaiting approval polls
    before the heal): a point past the end of its own run is not reached (the harness says so: its
    crash saw fewer than k requests, and the run passes as the clean run it was), which may only
    happen once the clean run's job had settled."""
    base = dataclasses.replace(scenario, sweep=None)
    mark = new_mark()
    spec = marked(REFERENCE, mark)
    try:
        # The clean run that finds the points is one for the four parts (the first part to start runs it).
        found = shared_runs.once(f"sweep-points-{scenario.id}", lambda: _points(base, spec))
        points, settled = [SweepPoint(*p) for p in found[0]], found[1]
        failing, unreached = [], []
        for point in points[part::SWEEP_PARTS]:
            doc = run_point(base, point, spec)
            crash = doc["faults"][0]
            if crash["status"] == "not_reached":
                assert crash["fired"] == 0 and crash["seen"] < point.k and point.k > settled, crash
                unreached.append(point.label)
            if doc["verdict"] != "pass":
                failing.append((point.label, doc["verdict"], doc["reproduce"]))
    finally:
        left = wait_gone(mark)
        kill_marked(mark)
    assert failing == [] and left == []
    assert len(unreached) <= len(points) // SWEEP_PARTS // 4, unreached


def _points(base: Any, spec: str) -> tuple[list[tuple[int, str, str]], int]:
    """The sweep's points from a clean run (as ``sweep_points`` finds them), and how many requests the
    candidate made before its job first settled in that run."""
    clean, history = run_once(dataclasses.replace(base, faults=()), spec)
    assert clean["verdict"] == "pass"
    heal = next(e.index for e in history.of_type("phase") if e.data.get("phase") == "heal")
    settle = next((e.index for e in history.of_type("report") if e.data.get("outcome") not in (None, "running")), heal)
    requests = [e for e in history.of_type("invoke") if e.process != WEBHOOKS and e.index < heal]
    kinds = [f"{e.data.get('method')} {e.data.get('service')}{re.sub(r'/([a-z]+_)?[0-9]+(?=/|$)', '/{id}', e.data.get('route', ''))}"
             for e in requests]
    chosen = [k for k, kind in enumerate(kinds, 1) if not kind.startswith("GET ") or kind not in kinds[:k - 1]]
    points = [(k, side, kinds[k - 1]) for k in chosen for side in POINTS]
    assert len(points) >= 2 * SWEEP_PARTS and any(p[2].startswith("POST wordpress") for p in points)
    return points, sum(1 for e in requests if e.index < settle)


PROMISES = [(m.split(":", 1)[1], s) for s in CATALOGUE if not s.sweep for m in s.must_catch]


@pytest.mark.slow
@pytest.mark.parametrize(("mutant", "scenario"), PROMISES, ids=[f"{m}-{s.id}" for m, s in PROMISES])
def test_every_promise_bites_as_a_process(mutant: str, scenario: Any) -> None:
    """Every scenario of one worker catches, as a process, every mutant it promises to catch (with
    the reference's client timeouts, the 30 seconds the contract recommends): a promise kept only
    in-process (``test_runs``) would be a scenario that cannot bite a real service. The sweep's
    promises are kept by other scenarios too; the lease scenarios' by ``test_workers_process``."""
    doc = as_process(f"{REFERENCE} --candidate mutant:{mutant}", scenario)
    assert doc["verdict"] == "fail", f"mutant:{mutant} escaped {scenario.id} as a process: {doc['verdict']} " \
                                     f"{doc['error']} ({doc['reproduce']})"
