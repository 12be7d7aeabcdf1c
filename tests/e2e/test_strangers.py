"""Control planes written by strangers from the contract alone (``tests/candidates/strangers/``) pass,
and their one-bug variants are caught, in every driver where they apply.

A green run must be trustworthy for a correct design the harness's authors did not write: a verdict
other than ``pass`` for a correct design here is a false alarm of the harness (or a bug of that
design, which its README and FINDINGS say how to tell apart); the assertion message carries the
because-lines and the reproduce command.

- In-process (Python), the outbox design runs the whole catalogue, inside the harness's process in
  ``make test`` and forked in ``make test-slow`` (``_drivers``; the polling design: ``test_polling_candidates``).
- As processes (real time), every design runs the scenarios where designs unlike the reference
  were judged red before (a fault plan counting the reference's requests, a condition in real time,
  a redo the world forced, a ledger of several versions), and the deploy and restart conditions;
  ``benchmarks/bench_strangers.py`` runs the whole catalogue that way (minutes per design).
- Each variant is caught by the scenario its README names, in each driver.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness import load_scenario, load_scenarios, run_scenario
from tests.e2e._drivers import driver_param, drivers_for
from tests.e2e._processes import REPO, kill_marked, marked, new_mark, story, wait_gone

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

SCENARIOS = REPO / "durable_harness" / "scenarios"
CATALOGUE = load_scenarios([SCENARIOS])
PY = shlex.quote(sys.executable)
SERVE = f"{PY} -m durable_harness.candidates.reference.serve --candidate"
STRANGERS = REPO / "tests" / "candidates" / "strangers"
# As processes: (name, command, environment); the designs on PostgreSQL get a scratch database per run.
# The polling design keeps its state in SQLite only: as processes it runs the scenarios of one worker
# (several worker processes share a PostgreSQL database).
SQLITE_ONLY = {"polling"}
PROCESSES = [
    ("outbox", f"{SERVE} tests.candidates.strangers.outbox:create", {}),
    ("polling", f"{SERVE} tests.candidates.strangers.polling:create", {}),
    ("dbos", f"{PY} {shlex.quote(str(STRANGERS / 'dbos' / 'serve.py'))}", {"DH_CANDIDATE_DATABASE": "postgres"}),
    ("langgraph", f"{PY} {shlex.quote(str(STRANGERS / 'langgraph' / 'serve.py'))}", {"DH_CANDIDATE_DATABASE": "postgres"}),
]
PROCESS_SCENARIOS = ("baseline", "update-503-after-commit", "artifact-corrupted", "api-key-revoked-mid-turn",
                     "session-listing-lags", "stale-session-reads", "stream-dropped-mid-turn", "executor-disconnected",
                     "coding-api-key-revoked", "approval-expired", "approval-revoked-before-publish",
                     "task-changed-after-cancel", "deploy-mid-job", "crash-after-draft-commit", "peer-restarts-mid-job",
                     "case-twin-lost-draft-response")
# (variant, driver, scenario that must catch it)
VARIANTS = [
    ("tests.candidates.strangers.outbox:create_buggy", "python", "crash-after-draft-commit"),
    (f"cmd:{SERVE} tests.candidates.strangers.outbox:create_buggy", "process", "crash-after-draft-commit"),
    ("tests.candidates.strangers.polling:create_buggy", "python", "lost-draft-response"),
    (f"cmd:{SERVE} tests.candidates.strangers.polling:create_buggy", "process", "lost-draft-response"),
    ("dbos --buggy", "process", "lost-draft-response"),
    ("langgraph --buggy", "process", "crash-after-draft-commit"),
]


def _failing(doc: dict[str, Any]) -> str:
    bad = [{"name": c["name"], "verdict": c["verdict"], "because": c["because"]} for c in doc["checkers"]
           if c["verdict"] != "pass"]
    return (f"{doc['scenario']['id']}: {doc['verdict']}{' (' + str(doc['error']) + ')' if doc.get('error') else ''}\n"
            + json.dumps(bad, indent=1) + "\n" + str(doc.get("reproduce", "")))


# In-process, the whole catalogue: the outbox design (the polling one, in both its styles, runs it in
# test_polling_candidates: it was run here too, twice over, which cost 144 runs and no assertion).
IN_PROCESS = ["outbox:create"]


@pytest.mark.parametrize("factory", IN_PROCESS)
@pytest.mark.parametrize(("driver", "scenario"), [driver_param(d, s, id=s.id) for s in CATALOGUE for d in drivers_for(s)])
def test_every_design_passes_in_process(driver: str, scenario: Any, factory: str) -> None:
    doc = run_scenario(scenario, f"tests.candidates.strangers.{factory}")
    assert doc["verdict"] == "pass", _failing(doc)


def _as_process(command: str, scenario: Any, environ: dict[str, str], monkeypatch: pytest.MonkeyPatch,
                out: Path | None = None) -> dict[str, Any]:
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    mark = new_mark()
    try:
        return run_scenario(scenario, marked(command, mark), None, out)
    finally:
        left = wait_gone(mark)
        kill_marked(mark)
        assert left == [], f"processes left behind: {left}"


def _needs(name: str) -> None:
    """A design on a framework needs it installed (the test extra installs it) and its folder."""
    if not (STRANGERS / name).is_dir():
        pytest.fail(f"tests/candidates/strangers/{name} is missing")
    library = {"dbos": "dbos", "langgraph": "langgraph"}.get(name)
    if library is not None:
        try:
            __import__(library)
        except ImportError:  # never skipped: a green suite must have run every design
            pytest.fail(f"the {name} design needs {library!r}: pip install -e '.[test]' installs it")


def _workers(scenario_id: str) -> int:
    return load_scenario(SCENARIOS / f"{scenario_id}.yaml").workers


PROCESS_RUNS = [pytest.param(name, command, environ, scenario_id, id=f"{name}-{scenario_id}")
                for name, command, environ in PROCESSES for scenario_id in PROCESS_SCENARIOS
                if name not in SQLITE_ONLY or _workers(scenario_id) == 1]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "command", "environ", "scenario_id"), PROCESS_RUNS)
def test_every_design_passes_as_a_process(name: str, command: str, environ: dict[str, str], scenario_id: str,
                                          monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _needs(name)
    doc = _as_process(command, load_scenario(SCENARIOS / f"{scenario_id}.yaml"), environ, monkeypatch, tmp_path)
    assert doc["verdict"] == "pass", _failing(doc) + story(tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "driver", "scenario_id"), VARIANTS, ids=[f"{v[0].split()[0]}-{v[1]}" for v in VARIANTS])
def test_every_variant_is_caught(variant: str, driver: str, scenario_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = load_scenario(SCENARIOS / f"{scenario_id}.yaml")
    if driver == "python":
        doc = run_scenario(scenario, variant)
    else:
        command, environ = variant.removeprefix("cmd:"), {}
        design = variant.split()[0]
        if design in ("dbos", "langgraph"):  # a framework design: its own serve.py, on PostgreSQL
            _needs(design)
            command = f"{PY} {shlex.quote(str(STRANGERS / design / 'serve.py'))} --buggy"
            environ = {"DH_CANDIDATE_DATABASE": "postgres"}
        doc = _as_process(command, scenario, environ, monkeypatch)
    assert doc["verdict"] == "fail" and doc["exit_code"] == 1, _failing(doc)
    witnessed = [c for c in doc["checkers"] if c["verdict"] == "fail" and c["witnesses"]]
    assert witnessed, "caught without a witness"
