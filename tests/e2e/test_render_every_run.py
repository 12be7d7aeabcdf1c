"""Every kind of run document the engine writes renders: validated, then as Markdown and JUnit.
Each document here comes from a real run, not from a hand-made dict."""

from __future__ import annotations

import os
import signal
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from durable_harness.fakes.wordpress import WordPressFake
from durable_harness.harness import load_scenario, run_scenario
from durable_harness.harness._determinism import check_determinism
from durable_harness.harness._run import RunInterrupted, run_once
from durable_harness.harness.candidate._environ import PASS_ENV
from durable_harness.reports import load_report, render_junit, render_summary, validate_run, write_outputs
from tests.e2e._drivers import DRIVERS, driver_param

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

REPO = Path(__file__).parents[2]
SCENARIOS = REPO / "durable_harness" / "scenarios"
HERE = Path(__file__).parent


class NotAReport:
    """Works like nothing at all and answers report() with a string: the run has no claims."""

    def __init__(self, env: Any) -> None:
        pass

    def submit(self, job: Any) -> Any:
        return {}

    def report(self, job_id: str) -> Any:
        return "fine, thanks"

    def step(self) -> bool:
        return False


HARNESS_PID = "DH_TEST_HARNESS_PID"  # the harness's pid, for a candidate in a process of its own


class Interrupts(NotAReport):
    """Ctrl-C reaches the harness while the candidate is inside a step (a SIGINT to the harness's
    process, as a terminal sends it; the candidate waits on the run's clock meanwhile)."""

    def __init__(self, env: Any) -> None:
        self.env = env

    def step(self) -> bool:
        os.kill(int(os.environ[HARNESS_PID]), signal.SIGINT)
        for _ in range(100):
            self.env.clock.sleep(1.0)
        return False


def not_a_report(env: Any) -> NotAReport:
    return NotAReport(env)


def interrupts(env: Any) -> Interrupts:
    return Interrupts(env)


def _harness_error(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    def broken(self: WordPressFake, request: Any) -> Any:
        raise KeyError("a bug in the fake")

    with monkeypatch.context() as m:
        m.setattr(WordPressFake, "handle", broken)
        return run_scenario(load_scenario(SCENARIOS / "baseline.yaml"), "reference")


@pytest.mark.parametrize("driver", [driver_param(d) for d in DRIVERS])
def test_every_kind_of_run_document_renders(driver: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def scenario(name: str) -> Any:
        return load_scenario(SCENARIOS / f"{name}.yaml")

    docs = {
        "pass": run_scenario(scenario("baseline"), "reference"),
        "fail": run_scenario(scenario("lost-draft-response"), "mutant:blind-retry"),
        "unknown": run_scenario(scenario("draft-503-before-write"), "mutant:unknown-is-failure"),
        "not exercised": run_scenario(scenario("duplicated-stream-events"), "tests.candidates.strangers.polling:create"),
        "candidate error": run_scenario(scenario("baseline"), "tests.e2e.test_runs:exploding"),
        "setup error": run_scenario(scenario("forged-webhooks"), "tests.e2e.test_runs:idle"),
        "harness error": _harness_error(monkeypatch),
        "claims null": run_scenario(scenario("baseline"), f"{__name__}:not_a_report"),
        "sweep": run_scenario(load_scenario(HERE / "scenarios" / "sweep-no-images.yaml"), "reference"),
    }
    base = run_scenario(scenario("baseline"), "tests.e2e.test_determinism:noisy", None, tmp_path / "noisy")
    docs["determinism"] = check_determinism(base, scenario("baseline"), "tests.e2e.test_determinism:noisy", tmp_path / "noisy")
    monkeypatch.setenv(HARNESS_PID, str(os.getpid()))
    monkeypatch.setenv(PASS_ENV, HARNESS_PID)
    # Ctrl-C as a terminal's process gets it: pytest started in the background of a script inherits
    # SIGINT ignored (POSIX), and Python keeps it so; then no SIGINT would reach the run.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        ran, _ = run_once(scenario("baseline"), f"{__name__}:interrupts")
    except RunInterrupted as interrupted:
        docs["interrupted"] = interrupted.doc
    else:  # say how the run ended instead (the candidate's SIGINT never stopped it)
        pytest.fail(f"the run was not interrupted: {ran['verdict']}, {ran['error']}, "
                    f"{[(c['name'], c['because']) for c in ran['checkers'] if c['verdict'] != 'pass']}")
    finally:
        signal.signal(signal.SIGINT, previous)

    assert docs["claims null"]["claims"] is None and docs["claims null"]["error"] is None
    assert {d["error"]["kind"] for d in docs.values() if d["error"]} == {"candidate", "setup", "harness", "interrupted"}
    assert any(f["status"] == "not_exercised" for f in docs["not exercised"]["faults"])
    assert docs["sweep"]["sweep"]["points"] > 0 and docs["determinism"]["determinism"]["same"] is False
    for kind, doc in docs.items():
        validate_run(doc, source=kind)
    summary = render_summary(list(docs.values()))
    for doc in docs.values():
        assert doc["scenario"]["id"] in summary
    ET.fromstring(render_junit(list(docs.values())))


@pytest.mark.parametrize("driver", [driver_param(d) for d in DRIVERS])
def test_a_report_folder_of_one_candidate_renders_from_disk(driver: str, tmp_path: Path) -> None:
    for name in ("baseline", "lost-draft-response"):
        run_scenario(load_scenario(SCENARIOS / f"{name}.yaml"), f"{__name__}:not_a_report", None, tmp_path / name)
    loaded = load_report(tmp_path)
    assert len(loaded.runs) == 2 and all(r["claims"] is None for r in loaded.runs)
    written = write_outputs(tmp_path, loaded.runs, loaded.index)
    assert {p.name for p in written} >= {"summary.md", "junit.xml"}
