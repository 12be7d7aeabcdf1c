"""``durable-harness run -j N``: scenarios in worker processes give the sequential run's report
(every run.json but its timings, every history byte for byte, the summary but its times and
command), a signal leaves a valid partial report, no process behind, and bad values are one line."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e._processes import MARK, kill_marked, new_mark, wait_gone

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

REPO = Path(__file__).parents[2]
SCENARIOS = REPO / "durable_harness" / "scenarios"
SOME = ("baseline", "lost-draft-response", "coding-baseline", "wordpress-down", "cancel-while-draft-in-flight")


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "durable_harness.harness.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


def _some(tmp_path: Path) -> Path:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    for name in SOME:
        shutil.copy(SCENARIOS / f"{name}.yaml", folder)
    return folder


def _comparable(run: Path) -> dict[str, object]:
    doc = json.loads(run.read_text())
    doc.pop("timings")
    return doc


def test_parallel_runs_give_the_sequential_report(tmp_path: Path) -> None:
    folder = _some(tmp_path)
    one = cli("run", "-j", "1", "--candidate", "mutant:blind-retry", "--scenario", str(folder), "--report", str(tmp_path / "one"),
              cwd=tmp_path)
    two = cli("run", "-j", "2", "--candidate", "mutant:blind-retry", "--scenario", str(folder), "--report",
              str(tmp_path / "two"), cwd=tmp_path)
    assert (one.returncode, two.returncode) == (1, 1), two.stdout + two.stderr
    progress = [line.split()[2] for line in two.stdout.splitlines() if line.startswith("[")]
    assert sorted(progress) == sorted(SOME)  # one line per scenario, as each finishes
    for name in SOME:
        assert (tmp_path / "one" / name / "history.jsonl").read_bytes() == (tmp_path / "two" / name / "history.jsonl").read_bytes()
        assert _comparable(tmp_path / "one" / name / "run.json") == _comparable(tmp_path / "two" / name / "run.json")

    def summary(report: str) -> list[str]:
        return [line for line in (tmp_path / report / "summary.md").read_text().splitlines()
                if not line.startswith(("- Started:", "- Command:"))]
    assert summary("one") == summary("two")
    def closing(result: subprocess.CompletedProcess[str], report: str) -> list[str]:
        return [line.replace(str(tmp_path / report), "R") for line in result.stdout.splitlines()[-8:]]
    assert closing(one, "one") == closing(two, "two")  # the closing lines: verdicts, findings


@pytest.mark.parametrize("value", ["0", "x", "-3", "999"])
def test_a_bad_number_of_jobs_is_one_line_exit_3(tmp_path: Path, value: str) -> None:
    result = cli("run", "-j", value, "--report", str(tmp_path / "r"), cwd=tmp_path)
    assert result.returncode == 3 and "Traceback" not in result.stderr
    assert "argument -j/--jobs" in result.stderr.strip().splitlines()[-1]


def test_a_signal_stops_a_parallel_run_with_a_partial_report_and_no_worker_left(tmp_path: Path) -> None:
    report, mark = tmp_path / "r", new_mark()
    process = subprocess.Popen([sys.executable, "-m", "durable_harness.harness.cli", "run", "-j", "2", "--report",
                                str(report)], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, MARK: mark})  # every process it starts inherits the mark
    assert process.stdout is not None
    first = process.stdout.readline()  # one scenario has finished
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 3, first + out + err
    assert "INTERRUPTED (SIGTERM)" in out and "Traceback" not in err
    index = json.loads((report / "report.json").read_text())
    assert index["partial"] is True and index["completed"] >= 1
    left = wait_gone(mark)
    kill_marked(mark)
    assert left == [], f"processes left behind: {left}"


def test_run_defaults_to_a_worker_per_core_and_to_what_they_use_for_a_candidate_process() -> None:
    from durable_harness.harness._parallel import default_jobs
    from durable_harness.harness.cli import BY_USE_CAP, run_admission, run_jobs

    assert run_jobs(None, "reference") == run_jobs(None, "mutant:blind-retry") == default_jobs()
    assert run_admission(None, "reference") is None and run_admission(2, "cmd:node server.js") is None
    admission = run_admission(None, "cmd:node examples/node-control-plane/server.js")
    assert admission is not None and (admission.limit(), admission.cap) == (default_jobs(), BY_USE_CAP * default_jobs())
    assert run_jobs(3, "cmd:node server.js") == 3 and run_jobs(1, "reference") == 1
