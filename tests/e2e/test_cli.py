"""The command line end to end, as a user types it (a real subprocess for the exit codes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
SCENARIOS = REPO / "scenarios"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.slow  # the whole catalogue, the crash-point sweep included
def test_reference_passes_the_catalogue(tmp_path: Path) -> None:
    result = cli("run", "--report", str(tmp_path / "r"), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "scenarios passed for reference" in result.stdout
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert "baseline" in summary and "lost-draft-response" in summary
    assert (tmp_path / "r" / "junit.xml").exists()
    doc = json.loads((tmp_path / "r" / "lost-draft-response" / "run.json").read_text())
    assert doc["verdict"] == "pass" and doc["faults"][0]["fired"] == 1


def test_blind_retry_is_caught_with_witness_and_reproduce_command(tmp_path: Path) -> None:
    result = cli("run", "--candidate", "mutant:blind-retry", "--scenario", str(SCENARIOS / "lost-draft-response.yaml"),
                 "--scenario", str(SCENARIOS / "lost-media-response-2.yaml"), "--report", str(tmp_path / "r"), cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "duplicate_drafts=1" in result.stdout and "duplicate_media=1" in result.stdout
    assert "witness #" in result.stdout
    assert f"reproduce: durable-harness run --candidate mutant:blind-retry --scenario {SCENARIOS / 'lost-draft-response.yaml'} --seed" in result.stdout
    doc = json.loads((tmp_path / "r" / "lost-draft-response" / "run.json").read_text())
    dup = next(c for c in doc["checkers"] if c["name"] == "duplicate_drafts")
    assert dup["verdict"] == "fail" and dup["count"] >= 1 and dup["witnesses"]


def test_reproduce_command_reproduces_the_same_history(tmp_path: Path) -> None:
    first = cli("run", "--candidate", "mutant:blind-retry", "--scenario", str(SCENARIOS / "lost-draft-response.yaml"),
                "--report", str(tmp_path / "a"), cwd=tmp_path)
    doc = json.loads((tmp_path / "a" / "lost-draft-response" / "run.json").read_text())
    command = doc["reproduce"].split()[1:] + ["--report", str(tmp_path / "b")]
    second = cli(*command, cwd=tmp_path)
    assert first.returncode == second.returncode == 1
    a = (tmp_path / "a" / "lost-draft-response" / "history.jsonl").read_bytes()
    b = (tmp_path / "b" / "lost-draft-response" / "history.jsonl").read_bytes()
    assert a == b


def test_malformed_scenario_is_one_line_exit_3_no_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text((SCENARIOS / "lost-draft-response.yaml").read_text().replace("nth: 1", "nth: 0"))
    for command in (["run", "--scenario", str(bad)], ["validate", str(bad)]):
        result = cli(*command, cwd=tmp_path)
        assert result.returncode == 3
        assert result.stderr.strip().count("\n") == 0, result.stderr
        assert f"{bad}: faults[0].at.nth: 0 is invalid" in result.stderr
        assert "Traceback" not in result.stderr


@pytest.mark.parametrize("spec", ["mutant:nope", "no_such_module:create", "bogus"])
def test_bad_candidate_is_exit_3(tmp_path: Path, spec: str) -> None:
    result = cli("run", "--candidate", spec, "--scenario", str(SCENARIOS / "baseline.yaml"), cwd=tmp_path)
    assert result.returncode == 3 and "--candidate" in result.stderr and "Traceback" not in result.stderr


def test_validate_and_list(tmp_path: Path) -> None:
    result = cli("validate", cwd=tmp_path)
    assert result.returncode == 0 and "scenario file(s) valid" in result.stdout
    listing = cli("list", cwd=tmp_path)
    assert listing.returncode == 0
    for word in ("lost-draft-response", "mutant:blind-retry", "lose_response", "duplicate_drafts"):
        assert word in listing.stdout


def test_render_rebuilds_outputs_without_rerunning(tmp_path: Path) -> None:
    cli("run", "--scenario", str(SCENARIOS / "baseline.yaml"), "--report", str(tmp_path / "r"), cwd=tmp_path)
    (tmp_path / "r" / "summary.md").unlink()
    result = cli("render", str(tmp_path / "r"), cwd=tmp_path)
    assert result.returncode == 0 and (tmp_path / "r" / "summary.md").exists()
