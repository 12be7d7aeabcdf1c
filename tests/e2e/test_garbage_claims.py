"""Garbage from a candidate is a verdict, never a crash of the run: a ``report()`` that is not a
JobReport fails ``invalid_reports`` (safety, exit 1), and an exception of any class from candidate
code (``SystemExit``, ``GeneratorExit``, a ``BaseException`` of its own) is the candidate's crash."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from durable_harness.candidates.reference import ReferencePlane
from durable_harness.harness import load_scenario, run_scenario
from durable_harness.harness._run import run_once
from tests.e2e._drivers import DRIVERS, driver_param

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

SCENARIOS = Path(__file__).parents[2] / "durable_harness" / "scenarios"


def _self_containing() -> dict[str, Any]:
    report: dict[str, Any] = {"outcome": "needs_human"}
    report["again"] = report
    return report


GARBAGE: dict[str, Any] = {
    "none": None,
    "text": "all good",
    "nan": {"outcome": "needs_human", "resume_attempts": float("nan")},
    "huge-text": {"outcome": "needs_human", "note": "x" * (3 * 1024 * 1024)},
    "huge-int": {"outcome": "needs_human", "operations": [], "attempt": 10**400},
    "wrong-types": {"outcome": "needs_human", "operations": "none", "checkpoint": ["draft_created"]},
    "self-containing": _self_containing(),
    "not-json": {"outcome": "needs_human", "since": object()},
}
class Garbage(ReferencePlane):
    """The reference, doing its work, but answering every report() with garbage (``kind``)."""

    kind = "none"

    def report(self, job_id: str) -> Any:
        return GARBAGE[self.kind]


def _factory_name(kind: str) -> str:
    return "garbage_" + kind.replace("-", "_")


# One factory per kind (a candidate runs in a process of its own: it is named, not configured).
for _kind in GARBAGE:
    globals()[_factory_name(_kind)] = type(f"Garbage_{_factory_name(_kind)}", (Garbage,), {"kind": _kind})


@pytest.mark.parametrize(("driver", "kind"), [driver_param(d, k, id=k) for d in DRIVERS for k in sorted(GARBAGE)])
def test_a_report_that_is_not_a_job_report_is_a_safety_failure_not_a_crash(driver: str, kind: str) -> None:
    candidate = f"{__name__}:{_factory_name(kind)}"
    doc, history = run_once(load_scenario(SCENARIOS / "baseline.yaml"), candidate)
    assert doc["error"] is None, doc["error"]
    assert not any("crashed" in c["because"] for c in doc["checkers"])
    invalid = next(c for c in doc["checkers"] if c["name"] == "invalid_reports")
    assert (invalid["verdict"], invalid["count"]) == ("fail", 1), invalid  # the same garbage is noted once
    assert "not a JobReport" in invalid["because"] and invalid["witnesses"]
    assert doc["safety"] == "fail" and doc["exit_code"] == 1 and doc["claims"] is None
    assert len(history.of_type("report")) == 0
    again, _ = run_once(load_scenario(SCENARIOS / "baseline.yaml"), candidate)
    assert again["history"]["digest"] == doc["history"]["digest"]  # no address or id of an object in the history


class GarbageOnce(ReferencePlane):
    """The reference, except that its third report is not JSON."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.reports = 0

    def report(self, job_id: str) -> Any:
        self.reports += 1
        return {"outcome": float("nan")} if self.reports == 3 else super().report(job_id)


def garbage_once(env: Any) -> GarbageOnce:
    return GarbageOnce(env)


@pytest.mark.parametrize("driver", [driver_param(d) for d in DRIVERS])
def test_one_garbage_report_among_good_ones_fails_alone(driver: str) -> None:
    doc = run_scenario(load_scenario(SCENARIOS / "baseline.yaml"), f"{__name__}:garbage_once")
    failing = {c["name"] for c in doc["checkers"] if c["verdict"] != "pass"}
    assert failing == {"invalid_reports"} and doc["exit_code"] == 1
    assert doc["claims"] is not None and doc["claims"]["outcome"] == "needs_human"


class Custom(BaseException):
    """An exception class of the candidate's own, outside ``Exception``."""


RAISED: dict[str, BaseException] = {"SystemExit": SystemExit(0), "GeneratorExit": GeneratorExit("closing"),
                                    "Custom": Custom("mine")}
class RaisesOnce(ReferencePlane):
    """The reference, except that its second step of the run raises ``RAISED[raises]`` (a
    BaseException) before doing anything. It counts its steps in a file beside its database: an
    instance is a process of its own, and a restart a new one."""

    raises = "SystemExit"

    def step(self) -> bool:
        counter = Path(self.env.database_url.removeprefix("sqlite:///") + ".steps")
        steps = int(counter.read_text()) + 1 if counter.exists() else 1
        counter.write_text(str(steps))
        if steps == 2:
            raise RAISED[self.raises]
        return super().step()


for _name in RAISED:
    globals()[f"raises_{_name}"] = type(f"Raises{_name}", (RaisesOnce,), {"raises": _name})


@pytest.mark.parametrize(("driver", "name"), [driver_param(d, n, id=n) for d in DRIVERS for n in sorted(RAISED)])
def test_a_base_exception_from_candidate_code_is_its_crash_and_it_is_restarted(driver: str, name: str) -> None:
    doc = run_scenario(load_scenario(SCENARIOS / "baseline.yaml"), f"{__name__}:raises_{name}")
    assert doc["error"] is None and doc["verdict"] == "pass", doc["checkers"]
    raised = doc["candidate_errors"]
    assert [(e["method"], e["type"]) for e in raised] == [("step", name)]
    assert doc["timings"]["restarts"] == 1


class AlwaysExits(ReferencePlane):
    def step(self) -> bool:
        raise SystemExit(0)


def always_exits(env: Any) -> AlwaysExits:
    return AlwaysExits(env)


@pytest.mark.parametrize("driver", [driver_param(d) for d in DRIVERS])
def test_a_candidate_that_always_exits_cannot_be_run_and_the_harness_says_so(driver: str) -> None:
    doc = run_scenario(load_scenario(SCENARIOS / "baseline.yaml"), f"{__name__}:always_exits")
    assert doc["exit_code"] == 3 and doc["error"]["kind"] == "candidate"
    assert "still crashing" in doc["error"]["message"] and "SystemExit" in doc["error"]["message"]


class ExitsOnCancel(ReferencePlane):
    """Raises SystemExit from cancel(), which arrives while a write of its own is in flight."""

    def cancel(self, job_id: str) -> Any:
        raise SystemExit(1)


def exits_on_cancel(env: Any) -> ExitsOnCancel:
    return ExitsOnCancel(env)


@pytest.mark.parametrize("driver", [driver_param(d) for d in DRIVERS])
def test_a_base_exception_from_a_nested_call_is_recorded_and_the_run_goes_on(driver: str) -> None:
    doc = run_scenario(load_scenario(SCENARIOS / "cancel-while-draft-in-flight.yaml"), f"{__name__}:exits_on_cancel")
    assert doc["error"] is None
    assert [(e["method"], e["type"]) for e in doc["candidate_errors"]] == [("cancel", "SystemExit")]


# -- the same garbage from a process (cmd:): the same verdict -------------------------------------
# What a process can put on the wire: JSON that is not a JobReport (and, below, an answer that is not
# JSON). Once, among good reports, so that the run settles as the baseline does.
OVER_THE_WIRE = ["text", "wrong-types", "nan"]


class GarbageThird(ReferencePlane):
    """The reference, except that its third report is garbage (``kind``)."""

    kind = "text"

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.reports = 0

    def report(self, job_id: str) -> Any:
        self.reports += 1
        return GARBAGE[self.kind] if self.reports == 3 else super().report(job_id)


for _kind in OVER_THE_WIRE:
    globals()["third_" + _factory_name(_kind)] = type(f"Third_{_factory_name(_kind)}", (GarbageThird,), {"kind": _kind})


def _as_process(command: str) -> dict[str, Any]:
    from tests.e2e._processes import kill_marked, marked, new_mark, wait_gone

    mark = new_mark()
    try:
        return run_scenario(load_scenario(SCENARIOS / "baseline.yaml"), marked(command, mark))
    finally:
        wait_gone(mark)
        kill_marked(mark)


@pytest.mark.slow
@pytest.mark.parametrize("kind", OVER_THE_WIRE)
def test_a_process_that_reports_garbage_fails_invalid_reports_as_in_process(kind: str) -> None:
    """The process driver checks a report as every driver does (one ``ReportSampler``): JSON that is
    not a JobReport is ``invalid_reports`` (safety, exit 1), never claims taken at face value."""
    from tests.e2e._processes import REFERENCE

    doc = _as_process(f"{REFERENCE} --candidate tests.e2e.test_garbage_claims:third_{_factory_name(kind)}")
    assert doc["error"] is None, doc["error"]
    failing = {c["name"]: c for c in doc["checkers"] if c["verdict"] != "pass"}
    assert list(failing) == ["invalid_reports"], failing
    assert failing["invalid_reports"]["count"] == 1 and "not a JobReport" in failing["invalid_reports"]["because"]
    assert doc["exit_code"] == 1 and doc["claims"] is not None and doc["claims"]["outcome"] == "needs_human"


@pytest.mark.slow
def test_a_process_whose_report_is_not_json_fails_invalid_reports() -> None:
    from tests.e2e._processes import MISBEHAVING

    doc = _as_process(f"{MISBEHAVING} text-report")
    assert doc["error"] is None, doc["error"]
    invalid = next(c for c in doc["checkers"] if c["name"] == "invalid_reports")
    assert invalid["verdict"] == "fail" and "which is not JSON" in invalid["because"], invalid
    assert doc["exit_code"] == 1
