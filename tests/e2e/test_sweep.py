"""The crash-point sweep: the reference survives a crash at every I/O point; mutants do not."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness import load_scenario
from durable_harness.harness._sweep import point_scenario, sweep, sweep_points
from durable_harness.harness.cli import main

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

BASE = load_scenario(Path(__file__).parents[2] / "durable_harness" / "scenarios" / "baseline.yaml")


def test_points_cover_every_request_on_both_sides() -> None:
    points, clean = sweep_points(BASE, "reference")
    assert clean["verdict"] == "pass"
    n = len(points) // 2  # the requests before the world heals (faults fire only then)
    assert {p.k for p in points} == set(range(1, n + 1)) and 0 < n <= clean["timings"]["requests"]
    assert {p.point for p in points} == {"before", "after"}
    scenario = point_scenario(BASE, points[5])
    assert scenario.faults[0].kind == "crash" and scenario.faults[0].at.nth == points[5].k


def test_one_point_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    points, _ = sweep_points(BASE, "mutant:blind-retry")
    upload = next(p for p in points if p.request == "POST wordpress/wp/v2/media" and p.point == "after")
    code = main(["sweep", "--candidate", "mutant:blind-retry", "--point", upload.label, "--report", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1 and "duplicate_media" in out
    assert "durable-harness sweep --candidate mutant:blind-retry" in out and f"--point {upload.label}" in out


def test_bad_point_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", "--point", "six", "--report", str(tmp_path)]) == 3
    assert "--point 'six' must be K:before or K:after" in capsys.readouterr().err


# The reference surviving every point is test_runs' test_reference_passes_every_scenario[restart-at-every-io-point].


@pytest.mark.slow
@pytest.mark.parametrize(("mutant", "counter"), [
    ("blind-retry", "duplicate_media"),
    ("new-session-on-restart", "resubmitted_tasks"),
    ("continue-instead-of-result", "progress_loss"),
])
def test_the_sweep_catches_restart_bugs(mutant: str, counter: str) -> None:
    """The sweep reaches the point where the mutant's bug does harm, and the harm is its counter's (the
    sweep is a generator: it stops at that point)."""
    seen: Counter[str] = Counter()
    for _point, doc in sweep(BASE, f"mutant:{mutant}"):
        seen.update(c["name"] for c in doc["checkers"] if c["verdict"] == "fail")
        if seen[counter]:
            return
    pytest.fail(f"no crash point made mutant:{mutant} fail {counter}: {seen}")


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "from-scratch"])
def test_a_sweep_cut_short_leaves_no_green_run_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forked: bool) -> None:
    """The harness stops while a sweep's points run: the scenario's run.json on disk says the sweep
    did not finish (exit 3, not judged), never the clean run's pass; it validates and renders."""
    import durable_harness.harness._sweep_fork as forks
    import durable_harness.harness._sweep_scenario as folded
    from durable_harness.harness._run import RunInterrupted
    from durable_harness.reports import load_report, render_summary, validate_run

    scenario = load_scenario(Path(__file__).parent / "scenarios" / "sweep-no-images.yaml")
    calls = []

    def stop_at_the_second(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise RunInterrupted({})
        return real(*args, **kwargs)

    def signal_while_the_points_run(self: Any) -> Any:
        raise KeyboardInterrupt

    real = folded.run_point
    if forked:
        monkeypatch.setattr(forks.ForkedSweep, "collect", signal_while_the_points_run)
    else:
        monkeypatch.setenv(forks.SWEEP_FORK, "0")
        monkeypatch.setattr(folded, "run_point", stop_at_the_second)
    with pytest.raises(RunInterrupted) as stopped:
        folded.run_sweep_scenario(scenario, "reference", None, tmp_path / scenario.id)
    if forked:
        assert stopped.value.doc["verdict"] == "unknown" and "did not finish" in stopped.value.doc["error"]["message"]
    doc = json.loads((tmp_path / scenario.id / "run.json").read_text())
    validate_run(doc)
    assert doc["verdict"] == "unknown" and doc["exit_code"] == 3 and doc["complete"] is False
    assert "did not finish" in doc["error"]["message"]
    summary = render_summary(load_report(tmp_path).runs)
    assert summary.splitlines()[0].startswith("## ⚠️ durable-harness: unknown, exit code 3"), summary[:300]
