"""A sessions API by URL behind the gate, end to end: ``durable-harness serve-fake openai`` runs as a
process of its own and is known to the harness only by its URL and key (``--service openai=URL``),
as a real one would be: the reference, served as a process, passes the applicable scenarios whose
faults act on the sessions API; mutants with a bug on that side are caught from what the upstream
holds; no key reaches a report. Runs keep the wall clock (scale 1), so each lasts its scenario's
seconds.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from durable_harness.harness import load_scenario, run_scenario
from durable_harness.harness._realtime import TIME_SCALE_ENV
from durable_harness.harness.cli import main
from tests.e2e._processes import REFERENCE, REPO, marked, story

# The reference and the mutants on several scenarios are slow (`make test-slow`); `make test` keeps the
# serve-fake and the one run through the command line (the driver end to end, keys and sessions left).
pytestmark = pytest.mark.e2e

SCENARIOS = REPO / "durable_harness" / "scenarios"
MUTANT = REFERENCE + " --candidate mutant:{}"


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The sessions fake, served as a process of its own; its URL and key (and what it printed)."""
    folder = tmp_path_factory.mktemp("serve-fake")
    env_file = folder / "fake-openai.env"
    child = subprocess.Popen([sys.executable, "-m", "durable_harness.harness.cli", "serve-fake", "openai",
                              "--env-file", str(env_file)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, env={**os.environ, "DH_SERVICE_OPENAI": ""})
    assert child.stdout is not None
    printed = [child.stdout.readline(), child.stdout.readline()]
    try:
        assert printed[0].startswith("openai: http://127.0.0.1:"), printed
        values = dict(line.split("=", 1) for line in env_file.read_text().splitlines())
        yield {"url": printed[0].split()[1], "key": values["OPENAI_API_KEY"], "printed": "".join(printed),
               "env_mode": oct(env_file.stat().st_mode & 0o777)}
    finally:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(timeout=15)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        child.stdout.close()


@pytest.fixture
def by_url(upstream: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("DH_SERVICE_OPENAI", upstream["url"])
    monkeypatch.setenv("DH_OPENAI_API_KEY", upstream["key"])
    monkeypatch.setenv(TIME_SCALE_ENV, "1")  # the suite compresses time; a sessions API by URL keeps the wall clock
    return upstream


def _run(command: str, scenario: str, mark: str, out: Path) -> dict[str, Any]:
    return run_scenario(load_scenario(SCENARIOS / f"{scenario}.yaml"), marked(command, mark), None, out)


def test_serve_fake_prints_its_url_and_keeps_its_key_in_a_file_of_the_users(by_url: dict[str, str]) -> None:
    assert by_url["key"] not in by_url["printed"] and "on the wall clock" in by_url["printed"]
    assert by_url["env_mode"] == "0o600"


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["baseline", "session-create-502-after-commit", "stream-dropped-mid-turn",
                                      "unknown-pending-race", "api-key-revoked-mid-turn", "lost-draft-response",
                                      "cancel-before-first-write"])
def test_the_reference_passes_against_a_sessions_api_by_url(scenario: str, by_url: dict[str, str], mark: str,
                                                           tmp_path: Path) -> None:
    doc = _run(REFERENCE, scenario, mark, tmp_path)
    failing = [(c["name"], c["because"]) for c in doc["checkers"] if c["verdict"] != "pass"]
    assert (doc["verdict"], doc["error"]) == ("pass", None), f"{failing}\n{doc['reproduce']}{story(tmp_path)}"
    truth = doc["truth"]["openai"]
    sessions = truth["sessions"]
    assert sessions and all(s["metadata"]["job_id"].startswith(f"job-{scenario}-") for s in sessions), sessions
    assert truth["tool_calls"] and all(c["role"] and c["job_id"] == sessions[0]["metadata"]["job_id"]
                                       for c in truth["tool_calls"]), truth["tool_calls"]
    assert "--service openai=" + by_url["url"] in doc["reproduce"]


@pytest.mark.slow
@pytest.mark.parametrize(("mutant", "scenario", "checker"), [
    ("create-session-on-empty-listing", "session-create-502-after-commit", "resubmitted_tasks"),
    ("resubmit-on-drop", "stream-dropped-mid-turn", "resubmitted_tasks"),
    ("ignore-cancel", "cancel-before-first-write", "unauthorized_calls"),  # its trigger read live upstream
])
def test_a_bug_on_the_sessions_side_is_caught_from_what_the_upstream_holds(
        mutant: str, scenario: str, checker: str, by_url: dict[str, str], mark: str, tmp_path: Path) -> None:
    doc = _run(MUTANT.format(mutant), scenario, mark, tmp_path)
    verdicts = {c["name"]: c["verdict"] for c in doc["checkers"]}
    assert doc["error"] is None and verdicts.get(checker) == "fail", f"{verdicts} {doc['error']}\n{story(tmp_path)}"


def test_no_key_reaches_a_report_and_no_session_is_left_upstream(by_url: dict[str, str], mark: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "report"
    code = main(["run", "--candidate", marked(REFERENCE, mark), "--service", f"openai={by_url['url']}",
                 "--scenario", str(SCENARIOS / "baseline.yaml"), "--scenario", str(SCENARIOS / "coding-baseline.yaml"),
                 "--report", str(report)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "not applicable: coding-baseline: the coding workload's ground truth" in out
    index = json.loads((report / "report.json").read_text())
    assert index["real_services"]["openai"] == by_url["url"] and "coding-baseline" in index["not_applicable"]
    job_id = json.loads((report / "baseline" / "run.json").read_text())["truth"]["openai"]["sessions"][0]["metadata"]["job_id"]
    left = httpx.get(f"{by_url['url']}/agents/sessions", params={"metadata[job_id]": job_id},
                     headers={"authorization": f"Bearer {by_url['key']}", "openai-beta": "agents=v1"})
    assert left.status_code == 200 and left.json()["data"] == [], "the run's sessions were left upstream"
    minted = re.compile(r"sk-harness-[a-z0-9]{32}")
    files = [p for p in report.rglob("*") if p.is_file()]
    assert any(p.name == "history.jsonl" for p in files)
    for path in files:
        text = path.read_text(errors="replace")
        assert by_url["key"] not in text, f"the harness's key is in {path}"
        assert not minted.search(text), f"the candidate's key is in {path}"
