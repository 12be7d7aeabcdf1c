"""A process that starts slowly: the limit on its start is a setting (``DH_STARTUP_TIMEOUT_S``), its
start is measured apart from the run's time, and an error says how long it had been starting."""

from __future__ import annotations

import shlex

import pytest

from durable_harness.harness import load_scenario, run_scenario
from durable_harness.harness.cli import main
from tests.e2e._processes import REFERENCE, REPO, kill_marked, marked, new_mark, wait_gone

pytestmark = pytest.mark.e2e

BASELINE = load_scenario(REPO / "durable_harness" / "scenarios" / "baseline.yaml")
SLOW = "sh -c " + shlex.quote(f"sleep 3; exec {REFERENCE}")  # three real seconds before it even begins


def _run(command: str) -> dict:
    mark = new_mark()
    try:
        return run_scenario(BASELINE, marked(command, mark))
    finally:
        wait_gone(mark)
        kill_marked(mark)


@pytest.mark.slow
def test_a_start_slower_than_the_limit_is_exit_3_saying_how_long_it_took(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DH_STARTUP_TIMEOUT_S", "1")
    doc = _run(SLOW)
    assert doc["exit_code"] == 3 and doc["error"]["kind"] == "candidate", doc["error"]
    message = doc["error"]["message"]
    assert "within 1 s" in message and "had been starting for" in message and "DH_STARTUP_TIMEOUT_S" in message


@pytest.mark.slow
def test_a_higher_limit_lets_it_start_and_its_start_is_measured_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DH_STARTUP_TIMEOUT_S", "30")
    doc = _run(SLOW)
    assert doc["verdict"] == "pass", doc["checkers"]
    assert doc["timings"]["startup_s"][0] >= 3.0  # real seconds, not the run's time


@pytest.mark.parametrize("value", ["abc", "0", "-5", "99999"])
def test_a_bad_limit_is_bad_usage_naming_the_variable(value: str, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DH_STARTUP_TIMEOUT_S", value)
    assert main(["run", "--scenario", str(REPO / "durable_harness" / "scenarios" / "baseline.yaml")]) == 3
    assert f"DH_STARTUP_TIMEOUT_S={value!r}" in capsys.readouterr().err
