"""The sweep forks each crash point from its clean run: the same bytes as the point run from scratch.

A forked point's run.json and history.jsonl must be byte for byte those of ``run_point`` (the
point's run from scratch), for the reference, for a mutant the sweep catches and for a control
plane unlike the reference; a fork that dies is that point's harness error (exit 3), never a pass;
and where forking cannot be exact the points run from scratch.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness import load_scenario
from durable_harness.harness._history import History
from durable_harness.harness._sweep import SweepPoint, run_point
from durable_harness.harness._sweep_fork import SWEEP_FORK, applies
from durable_harness.harness._sweep_scenario import POINTS_DIR, run_sweep_scenario
from durable_harness.harness.scenario import ActionSpec

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

SMALL = load_scenario(Path(__file__).parent / "scenarios" / "sweep-no-images.yaml")
ARTICLE = load_scenario(Path(__file__).parents[2] / "durable_harness" / "scenarios" / "restart-at-every-io-point.yaml")


def _sample(labels: list[str], every: int) -> list[str]:
    """The first and last points, and every ``every``-th between (both sides of each request)."""
    ks = sorted({int(label.split(":")[0]) for label in labels})
    chosen = {ks[0], ks[-1], *ks[::every]}
    return [label for label in labels if int(label.split(":")[0]) in chosen]


def _same_as_from_scratch(scenario: Any, candidate: str, tmp_path: Path, every: int) -> dict[str, Any]:
    forked_dir, fresh_dir = tmp_path / "forked", tmp_path / "fresh"
    doc = run_sweep_scenario(scenario, candidate, None, forked_dir)
    base = dataclasses.replace(scenario, sweep=None)
    folders = {p.name.rsplit("-crash-", 1)[1].replace("-", ":", 1): p for p in (forked_dir / POINTS_DIR).iterdir()}
    assert len(folders) == doc["sweep"]["points"] > 0
    for label in _sample(sorted(folders), every):
        k, side = label.split(":")
        fresh = run_point(base, SweepPoint(int(k), side, "?"), candidate, None, fresh_dir)
        forked = folders[label]
        again = fresh_dir / forked.name
        assert (forked / "history.jsonl").read_bytes() == (again / "history.jsonl").read_bytes(), (
            f"{candidate} {label}: the forked point's history differs from the run from scratch")
        assert (forked / "run.json").read_bytes() == (again / "run.json").read_bytes(), (
            f"{candidate} {label}: the forked point's run.json differs from the run from scratch")
        assert json.loads((forked / "run.json").read_text())["verdict"] == fresh["verdict"]
    return doc


def test_forked_points_are_the_runs_from_scratch(tmp_path: Path) -> None:
    doc = _same_as_from_scratch(SMALL, "reference", tmp_path, every=5)
    assert doc["verdict"] == "pass" and doc["sweep"]["passed"] == doc["sweep"]["points"]


@pytest.mark.slow
@pytest.mark.parametrize("candidate", ["reference", "mutant:blind-retry", "mutant:new-session-on-restart",
                                       "tests.candidates.strangers.polling:create"])
def test_forked_points_of_the_article_sweep_are_the_runs_from_scratch(tmp_path: Path, candidate: str) -> None:
    doc = _same_as_from_scratch(ARTICLE, candidate, tmp_path, every=8)
    assert (doc["verdict"] == "pass") == (not candidate.startswith("mutant:")), doc["sweep"]


def test_a_fork_that_dies_is_that_points_harness_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The process of one point is killed before it hands its document over: that point, and so
    the sweep, is an error of the harness (exit 3), and the other points are judged as ever."""
    import durable_harness.harness._sweep_fork as forks

    finish = forks._PointEnd.finish

    def die_at_the_third(self: Any, doc: dict[str, Any], history: Any, world: Any) -> None:
        if self.point.label == "3:after":
            os.kill(os.getpid(), signal.SIGKILL)
        finish(self, doc, history, world)

    monkeypatch.setattr(forks._PointEnd, "finish", die_at_the_third)
    doc = run_sweep_scenario(SMALL, "reference", None, tmp_path / SMALL.id)
    assert doc["exit_code"] == 3 and doc["verdict"] == "unknown" and doc["complete"] is False
    assert doc["error"]["kind"] == "harness" and "3:after" in doc["error"]["message"], doc["error"]
    assert "killed by signal 9" in doc["error"]["message"]
    assert doc["sweep"]["passed"] == doc["sweep"]["points"] - 1
    point = json.loads((tmp_path / SMALL.id / POINTS_DIR / f"{SMALL.id}-crash-3-after" / "run.json").read_text())
    assert point["exit_code"] == 3 and "an error of the harness" in point["error"]["message"]


@pytest.mark.parametrize("fork", [True, False], ids=["forked", "from-scratch"])
def test_a_clean_run_that_ends_in_the_harness_error_is_the_sweeps_harness_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fork: bool) -> None:
    """The clean run lists the points: one cut short by an error of the harness (here, the third
    point could not be forked: no pipe to the zygote) lists only some, so the sweep is that error
    (exit 3), never a verdict folded from the points it did run nor a crash of the fold."""
    import durable_harness.harness._sweep_fork as forks
    import durable_harness.harness._world as world_module

    if fork:
        fork_point = forks.ForkedSweep._fork

        def no_pipe_at_the_third(self: Any, point: SweepPoint) -> bool:
            if point.k == 3:
                raise OSError(24, "Too many open files")
            return fork_point(self, point)

        monkeypatch.setattr(forks.ForkedSweep, "_fork", no_pipe_at_the_third)
    else:
        monkeypatch.setenv(SWEEP_FORK, "0")
        after_step = world_module.World.after_step

        def broken_after_three(self: Any, *args: Any, **kwargs: Any) -> Any:
            if self.scenario.faults == () and self.gate.requests >= 3:
                raise world_module.HarnessError("a world that broke mid-run")
            return after_step(self, *args, **kwargs)

        monkeypatch.setattr(world_module.World, "after_step", broken_after_three)
    doc = run_sweep_scenario(SMALL, "reference", None, tmp_path / SMALL.id)
    assert doc["exit_code"] == 3 and doc["verdict"] == "unknown" and doc["complete"] is False, doc.get("error")
    assert doc["error"]["kind"] == "harness" and "its clean run" in doc["error"]["message"], doc["error"]
    assert ("Too many open files" if fork else "a world that broke mid-run") in doc["error"]["message"]
    assert json.loads((tmp_path / SMALL.id / "run.json").read_text())["exit_code"] == 3
    # Beside the error, the clean run's history as far as it got (what whoever reads the error needs
    # first), and the document describes that file.
    kept = History.load(tmp_path / SMALL.id / "history.jsonl")
    assert kept.of_type("invoke")
    assert (len(kept), kept.digest()) == (doc["history"]["entries"], doc["history"]["digest"])


@pytest.mark.parametrize("fork", ["1", "0"], ids=["forked", "from-scratch"])
def test_a_clean_run_the_candidate_cut_short_is_the_candidates_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fork: str) -> None:
    """A candidate that hangs in the sweep's clean run (before any request: no point to crash at):
    the sweep says the candidate's error, never one of the harness's."""
    monkeypatch.setenv(SWEEP_FORK, fork)
    monkeypatch.setenv("DH_CALL_TIMEOUT_S", "1.5")
    doc = run_sweep_scenario(SMALL, "tests.candidates.hostile:loops_forever", None, tmp_path / SMALL.id)
    assert doc["exit_code"] == 3 and doc["verdict"] == "unknown", doc["error"]
    assert doc["error"]["kind"] == "candidate" and "gave no sign of life" in doc["error"]["message"], doc["error"]


def test_where_forking_is_not_exact_the_points_run_from_scratch(monkeypatch: pytest.MonkeyPatch) -> None:
    base = dataclasses.replace(SMALL, sweep=None)
    assert applies(base, "reference")
    assert not applies(base, "cmd:python -m durable_harness.candidates.reference.serve")
    assert not applies(dataclasses.replace(base, workers=2), "reference")
    assert not applies(dataclasses.replace(base, actions=(ActionSpec(kind="cancel", at_s=5.0),)), "reference")
    for name, value in (("DH_IN_PROCESS", "1"), ("DH_CANDIDATE_NETWORK", "host"), (SWEEP_FORK, "0")):
        with monkeypatch.context() as m:
            m.setenv(name, value)
            assert not applies(base, "reference"), name


def test_points_forked_that_the_clean_history_does_not_list_are_the_harness_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The forks and the clean run's history must name the same points; if they do not, the sweep
    is an error of the harness (exit 3), never a verdict on the candidate."""
    import durable_harness.harness._sweep_fork as forks

    monkeypatch.setattr(forks, "points_of", lambda history: [])
    doc = run_sweep_scenario(SMALL, "reference", None, tmp_path / SMALL.id)
    assert doc["exit_code"] == 3 and doc["verdict"] == "unknown" and doc["error"]["kind"] == "harness"
    assert "the crash-point sweep" in doc["error"]["message"] and "must be the same points" in doc["error"]["message"]
    assert json.loads((tmp_path / SMALL.id / "run.json").read_text())["exit_code"] == 3


def test_a_fork_killed_mid_exchange_with_the_zygote_leaves_the_parents_pipe_whole() -> None:
    """A fork (a crash point) talks to the zygote on a pipe of its own: if it dies between asking
    and reading the answer, the answer is lost with its pipe, and the parent's next exchange gets
    its own answer, not the dead fork's."""
    from durable_harness.harness.isolation._pipe import ZygoteKind, send
    from durable_harness.harness.isolation._zygote import share_with_this_fork, zygote

    pipe = zygote().connection()
    pid = os.fork()
    if pid == 0:  # the fork: asks, and dies before the answer
        try:
            share_with_this_fork(pipe)
            send(zygote()._sock, {"k": ZygoteKind.REAP, "pid": 999_999_999})
        finally:
            os._exit(0)
    pipe.close()
    os.waitpid(pid, 0)
    child, sock = zygote().spawn({"mode": "probe", "spec": "reference", "network": "none"})
    sock.close()
    os.kill(child, signal.SIGKILL)
    status, _ = zygote().reap(child)
    assert status is not None and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status
