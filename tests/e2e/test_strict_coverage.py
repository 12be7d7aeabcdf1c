"""``--strict-coverage``: a fault the candidate's design never met is coverage by default (exit 0, said in
the report and on the last lines), and unknown with the flag (exit 2)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from durable_harness.harness.cli import main

pytestmark = pytest.mark.e2e

REPO = Path(__file__).parents[2]
SCENARIO = str(REPO / "durable_harness" / "scenarios" / "stream-dropped-mid-turn.yaml")
POLLING = "tests.candidates.strangers.polling:create"  # it never opens the event stream


def test_coverage_by_default_and_unknown_with_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DH_STRICT_COVERAGE", raising=False)
    assert main(["run", "-j", "1", "--candidate", POLLING, "--scenario", SCENARIO, "--report", str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert "coverage: 1/3 (33%) of the scheduled faults and actions took effect; 2 not exercised" in out
    doc = json.loads((tmp_path / "a" / "stream-dropped-mid-turn" / "run.json").read_text())
    assert doc["coverage"]["fired"] == 1 and len(doc["coverage"]["not_exercised"]) == 2
    assert "**1/3 (33%)**" in (tmp_path / "a" / "summary.md").read_text()
    try:
        code = main(["run", "-j", "1", "--strict-coverage", "--candidate", POLLING, "--scenario", SCENARIO,
                     "--report", str(tmp_path / "b")])
    finally:
        os.environ.pop("DH_STRICT_COVERAGE", None)  # the flag sets it for the run's workers
    assert code == 2
    strict = json.loads((tmp_path / "b" / "stream-dropped-mid-turn" / "run.json").read_text())
    fired = next(c for c in strict["checkers"] if c["name"] == "faults_fired")
    assert fired["verdict"] == "unknown" and "--strict-coverage" in fired["because"] and strict["coverage"]["strict"]
