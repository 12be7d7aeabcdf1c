"""No secret leaves a run. A candidate that prints its credentials in every encoding it can think
of, dumps its environment, writes its credentials into the article on the site and tries a
connection of its own: every file of the report is scanned for every secret of the run (in each
form redaction promises to cover) and for a secret of the CI runner's own environment, and none is
there; the runner's secret never reached the candidate; where the OS allows, its connection failed."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from durable_harness.harness import load_scenario
from durable_harness.harness._redact import MARK, secret_forms
from durable_harness.harness._world import World

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

REPO = Path(__file__).parents[2]
CI_TOKEN = "ci-runner-token-6b1f0a9e3c2d4e5f"


def _run_secrets(scenario_path: Path) -> set[str]:
    scenario = load_scenario(scenario_path)
    world = World(scenario, scenario.default_seed, REPO)  # the same seed draws the same secrets
    try:
        return set(world.secrets)
    finally:
        world.close()


def test_no_secret_of_the_run_or_of_the_runner_is_in_any_file_of_the_report(tmp_path: Path) -> None:
    scenario = REPO / "durable_harness" / "scenarios" / "baseline.yaml"
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    port = listener.getsockname()[1]
    env = {**os.environ, "DH_TEST_CI_TOKEN": CI_TOKEN, "DH_TEST_LISTENER": f"127.0.0.1:{port}",
           "DH_PASS_ENV": "DH_TEST_LISTENER"}
    report = tmp_path / "report"
    result = subprocess.run(
        [sys.executable, "-m", "durable_harness.harness.cli", "run", "--candidate", "tests.candidates.hostile:leaks_secrets",
         "--scenario", str(scenario), "--report", str(report)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode in (0, 1, 2), result.stderr
    forms = {f for s in _run_secrets(scenario) for f in secret_forms(s)}
    files = [p for p in report.rglob("*") if p.is_file()]
    assert any(p.name == "candidate-worker-1.log" for p in files)
    for path in [*files]:
        text = path.read_bytes().decode("utf-8", "replace")
        found = sorted(f for f in forms if f in text)
        assert found == [], f"{path.relative_to(report)} holds a secret of the run in a form: {found[:3]}"
        assert CI_TOKEN not in text, f"{path.relative_to(report)} holds the CI runner's secret"
    for stream in (result.stdout, result.stderr):
        assert CI_TOKEN not in stream and not [f for f in forms if f in stream]
    log = (report / "baseline" / "candidate-worker-1.log").read_text()
    assert MARK in log and "environment: " in log and "DH_TEST_CI_TOKEN" not in log
    assert "DH_TEST_LISTENER" in log  # named in DH_PASS_ENV: passed on
    try:
        listener.accept()[0].close()
        reached = True
    except OSError:
        reached = False
    finally:
        listener.close()
    if os.geteuid() == 0 and sys.platform.startswith("linux"):  # a network namespace of its own
        assert "Network is unreachable" in log and not reached
