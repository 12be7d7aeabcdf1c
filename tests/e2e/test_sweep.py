"""The crash-point sweep: the reference survives a crash at every I/O point; mutants do not."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from harness import load_scenario
from harness._sweep import point_scenario, sweep, sweep_points
from harness.cli import main

BASE = load_scenario(Path(__file__).parents[2] / "scenarios" / "baseline.yaml")


def test_points_cover_every_request_on_both_sides() -> None:
    points, clean = sweep_points(BASE, "reference")
    assert clean["verdict"] == "pass"
    assert len(points) == 2 * clean["timings"]["requests"]
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


@pytest.mark.slow
def test_reference_survives_every_crash_point() -> None:
    failing = [(p.label, p.request, d["reproduce"]) for p, d in sweep(BASE, "reference") if d["verdict"] != "pass"]
    assert not failing, failing


@pytest.mark.slow
@pytest.mark.parametrize(("mutant", "counter"), [
    ("blind-retry", "duplicate_media"),
    ("new-session-on-restart", "resubmitted_tasks"),
    ("continue-instead-of-result", "progress_loss"),
])
def test_the_sweep_catches_restart_bugs(mutant: str, counter: str) -> None:
    caught: Counter[str] = Counter()
    for _point, doc in sweep(BASE, f"mutant:{mutant}"):
        for c in doc["checkers"]:
            if c["verdict"] == "fail":
                caught[c["name"]] += 1
    assert caught[counter] >= 1, caught
