"""Containment: every Python candidate instance runs in a child process of its own (the forked
driver), so a crash really loses its memory, nothing it does reaches the judge, and it is bounded
in time and memory. Hostile and careless candidates (``tests/candidates/hostile``) each get the
verdict their behaviour deserves; none gets a PASS it did not earn; the harness always ends with a
report and leaves no process behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness import load_scenario
from durable_harness.harness._run import run_once
from durable_harness.harness.candidate._environ import PASS_ENV
from durable_harness.harness.isolation._zygote import zygote
from tests.e2e._processes import MARK, new_mark, wait_gone

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

REPO = Path(__file__).parents[2]
HOSTILE = "tests.candidates.hostile"


def scenario(name: str) -> Any:
    return load_scenario(REPO / "durable_harness" / "scenarios" / name)


def children(pid: int | str = "self") -> set[int]:
    """The live child processes of a process (all its threads')."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found.update(int(p) for p in (task / "children").read_text().split())
        except OSError:
            continue
    return found


@pytest.fixture
def own_zygote(monkeypatch: pytest.MonkeyPatch) -> None:
    """Instances are counted as the zygote's children: a zygote this process started itself (one
    shared with other processes, ``DH_ZYGOTE``, forks theirs too). Only the tests that count
    processes ask for it: a command line that starts a zygote of its own warms the SDK up again
    (about 2 s of CPU)."""
    from durable_harness.harness.isolation import _zygote

    monkeypatch.delenv(_zygote.SHARED_ZYGOTE, raising=False)
    if zygote().shared:
        _zygote._ZYGOTE.pop().close()


def instances() -> set[int]:
    """The processes forked from this harness's zygote (the candidate's instances and probes) and
    any other child of this harness but the zygote and the supervisor's watchdog."""
    return children(zygote().pid) | children()


def run(name: str, candidate: str, **env: str) -> dict[str, Any]:
    before = instances()
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        doc, _ = run_once(scenario(name), candidate)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    assert instances() - before == set(), "a candidate process outlived its run"
    return doc


def failed(doc: dict[str, Any]) -> set[str]:
    return {c["name"] for c in doc["checkers"] if c["verdict"] == "fail"}


@pytest.mark.usefixtures("own_zygote")
@pytest.mark.parametrize("hostile", ["memory_only", "swallows_crash"])
def test_a_crash_really_loses_memory(hostile: str) -> None:
    """State kept only in memory (and a crash caught where it could be) survives no real crash."""
    doc = run("crash-after-draft-commit.yaml", f"{HOSTILE}:{hostile}")
    assert doc["verdict"] == "fail" and doc["error"] is None, doc["reproduce"]
    assert doc["timings"]["restarts"] >= 1


@pytest.mark.usefixtures("own_zygote")
@pytest.mark.parametrize("hostile", ["patches_the_judge", "vandal"])
def test_nothing_the_candidate_does_reaches_the_judge(hostile: str) -> None:
    """Patching the checkers and the verdict, or emptying the harness's and the fakes' objects,
    changes a copy: the duplicate the bug makes is found as it is for the plain mutant."""
    doc = run("lost-draft-response.yaml", f"{HOSTILE}:{hostile}")
    plain = run("lost-draft-response.yaml", "mutant:blind-retry")
    assert doc["verdict"] == "fail" and "duplicate_drafts" in failed(doc)
    assert doc["history"]["digest"] == plain["history"]["digest"]


@pytest.mark.usefixtures("own_zygote")
@pytest.mark.parametrize("hostile", ["does_nothing", "background_thread"])
def test_work_must_be_done_where_the_harness_sees_it(hostile: str) -> None:
    doc = run("baseline.yaml", f"{HOSTILE}:{hostile}")
    assert doc["verdict"] != "pass" and "abandoned_jobs" in failed(doc)


@pytest.mark.usefixtures("own_zygote")
def test_a_call_that_never_answers_ends_the_run_saying_so() -> None:
    doc = run("baseline.yaml", f"{HOSTILE}:loops_forever", DH_CALL_TIMEOUT_S="1.5")
    assert doc["error"]["kind"] == "candidate" and "step() gave no sign of life for 1.5 s" in doc["error"]["message"]
    assert doc["verdict"] == "unknown"


@pytest.mark.usefixtures("own_zygote")
def test_the_runs_cpu_time_is_bounded() -> None:
    doc = run("baseline.yaml", f"{HOSTILE}:loops_forever", DH_CALL_TIMEOUT_S="60", DH_CANDIDATE_CPU_S="1")
    assert doc["error"]["kind"] == "candidate" and "CPU time bound of 1 s" in doc["error"]["message"]


@pytest.mark.usefixtures("own_zygote")
def test_memory_is_bounded_and_the_death_says_which_bound() -> None:
    doc = run("baseline.yaml", f"{HOSTILE}:eats_memory", DH_CANDIDATE_MEMORY_MB="128")
    assert "memory bound" in doc["error"]["message"]
    assert all(e["type"] == "MemoryError" for e in doc["candidate_errors"])


@pytest.mark.usefixtures("own_zygote")
@pytest.mark.parametrize("hostile, death", [
    ("sys_exit_in_step", "SystemExit: sys.exit(0) in step()"),
    ("os_exit_in_step", "exited with status 0"),
])
def test_an_exit_is_the_candidates_death_not_the_harness(hostile: str, death: str) -> None:
    doc = run("baseline.yaml", f"{HOSTILE}:{hostile}")
    assert doc["error"]["kind"] == "candidate" and death in doc["error"]["message"]


@pytest.mark.usefixtures("own_zygote")
def test_the_forked_driver_gives_the_in_process_history_byte_for_byte() -> None:
    for name in ("baseline.yaml", "lost-draft-response.yaml", "forged-webhook-mid-step.yaml",
                 "duplicated-stream-events.yaml", "sdk-retries-tool-result.yaml", "crash-after-draft-commit.yaml"):
        for candidate in ("reference", "mutant:blind-retry"):
            forked = run(name, candidate)
            inside = run(name, candidate, DH_IN_PROCESS="1")
            assert (forked["verdict"], forked["history"]) == (inside["verdict"], inside["history"]), (name, candidate)


def test_an_exit_at_import_is_a_report_not_the_end_of_the_harness(tmp_path: Path) -> None:
    report = tmp_path / "report"
    result = subprocess.run(
        [sys.executable, "-m", "durable_harness.harness.cli", "run", "--candidate", f"{HOSTILE}.exits_at_import:create",
         "--scenario", str(REPO / "durable_harness" / "scenarios" / "baseline.yaml"), "--report", str(report)],
        cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 3, result.stderr
    doc = json.loads((report / "baseline" / "run.json").read_text())
    assert "exited with status 0" in doc["error"]["message"]


@pytest.mark.usefixtures("own_zygote")
def test_killing_the_harness_kills_its_candidate(tmp_path: Path) -> None:
    """The harness SIGKILLed while its candidate computes: the candidate dies with it."""
    mark = new_mark()
    harness = subprocess.Popen(
        [sys.executable, "-m", "durable_harness.harness.cli", "run", "--candidate", f"{HOSTILE}:loops_forever",
         "--scenario", str(REPO / "durable_harness" / "scenarios" / "baseline.yaml"), "--report", str(tmp_path / "report")],
        cwd=REPO, env={**os.environ, MARK: mark, PASS_ENV: MARK, "DH_CALL_TIMEOUT_S": "300"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline, seen = time.monotonic() + 120, set()
        while time.monotonic() < deadline:  # an instance: forked from the zygote, and there to stay
            now = {g for c in _child_of(harness.pid) for g in _child_of(c)}
            if now & seen:
                break
            seen = now
            time.sleep(1.0)
        assert now & seen, "the candidate's process never started"
    finally:
        harness.send_signal(signal.SIGKILL)
        harness.wait(timeout=30)
    assert wait_gone(mark) == []


def _child_of(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def test_a_second_run_into_a_report_folder_in_use_is_refused(tmp_path: Path) -> None:
    report = tmp_path / "report"
    first = subprocess.Popen(
        [sys.executable, "-m", "durable_harness.harness.cli", "run", "--candidate", f"{HOSTILE}:loops_forever",
         "--scenario", str(REPO / "durable_harness" / "scenarios" / "baseline.yaml"), "--report", str(report)],
        cwd=REPO, env={**os.environ, "DH_CALL_TIMEOUT_S": "300"}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        lock = report / ".durable-harness.lock"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (lock.exists() and lock.read_text().strip()):
            time.sleep(0.1)
        second = subprocess.run(
            [sys.executable, "-m", "durable_harness.harness.cli", "run", "--scenario", str(REPO / "durable_harness" / "scenarios" / "baseline.yaml"),
             "--report", str(report)], cwd=REPO, capture_output=True, text=True, timeout=300)
        assert second.returncode == 3
        assert second.stderr.strip().count("\n") == 0
        assert f"is being written by another durable-harness run (pid {first.pid})" in second.stderr
    finally:
        first.kill()
        first.wait(timeout=30)
    again = subprocess.run(  # the first is gone: the folder is free
        [sys.executable, "-m", "durable_harness.harness.cli", "run", "--scenario", str(REPO / "durable_harness" / "scenarios" / "baseline.yaml"),
         "--report", str(report)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr


def test_the_candidates_database_stays_out_of_the_report_unless_asked(tmp_path: Path) -> None:
    def files(*extra: str) -> set[str]:
        report = tmp_path / ("kept" if extra else "plain")
        done = subprocess.run([sys.executable, "-m", "durable_harness.harness.cli", "run", "--scenario",
                               str(REPO / "durable_harness" / "scenarios" / "baseline.yaml"), "--report", str(report), *extra],
                              cwd=REPO, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return {p.name for p in (report / "baseline").iterdir()}

    assert not {n for n in files() if n.startswith("candidate.sqlite")}
    assert "candidate.sqlite" in files("--keep-candidate-db")
