"""Honest verdicts: the harness's own errors are never the candidate's fault, and truth comes from
the world, not from a constant in a scenario file."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import httpx
import pytest

from durable_harness.candidates.reference import ReferencePlane
from durable_harness.fakes.wordpress import WordPressFake
from durable_harness.harness import load_scenario, load_scenarios, run_scenario
from durable_harness.harness._run import run_once
from tests.e2e._drivers import DRIVERS, driver_param

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

REPO = Path(__file__).parents[2]
SCENARIOS = REPO / "durable_harness" / "scenarios"
HERE = Path(__file__).parent


# -- errors of the harness --------------------------------------------------------------------
def _breaks_on_first_draft(monkeypatch: pytest.MonkeyPatch) -> None:
    original = WordPressFake.handle
    broken = {"done": False}

    def handle(self: WordPressFake, request: Any) -> Any:
        if request.method == "POST" and request.path.endswith("/wp/v2/posts") and not broken["done"]:
            broken["done"] = True
            raise KeyError("a bug in the fake")
        return original(self, request)

    monkeypatch.setattr(WordPressFake, "handle", handle)


def test_a_fake_that_raises_is_a_harness_error_not_a_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    _breaks_on_first_draft(monkeypatch)
    doc, history = run_once(load_scenario(SCENARIOS / "baseline.yaml"), "reference")
    assert doc["exit_code"] == 3 and doc["error"]["kind"] == "harness"
    assert "not of the candidate" in doc["error"]["message"] and "the wordpress fake raised KeyError" in doc["error"]["message"]
    assert "Traceback" in doc["error"]["detail"]
    assert doc["checkers"] == [] and doc["verdict"] == "unknown"  # no checker verdict on a broken world
    draft = next((i, d) for i, d in history.operations() if i.data.get("route") == "/wp/v2/posts" and i.data["method"] == "POST")
    assert draft[1] is not None and draft[1].type == "info" and "a bug in the fake" in draft[1].data["harness_error"]
    assert doc["candidate_errors"] == []  # nothing was charged to the candidate


class Swallower(ReferencePlane):
    """Catches everything, even BaseException: it cannot hide the harness's error either."""

    def step(self) -> bool:
        try:
            return super().step()
        except BaseException:  # noqa: B036  (the point of the test)
            return False


def swallower(env: Any) -> Swallower:
    return Swallower(env)


def test_a_candidate_that_swallows_the_harness_error_cannot_hide_it(monkeypatch: pytest.MonkeyPatch) -> None:
    _breaks_on_first_draft(monkeypatch)
    doc, _ = run_once(load_scenario(SCENARIOS / "baseline.yaml"), f"{__name__}:swallower")
    assert doc["exit_code"] == 3 and doc["error"]["kind"] == "harness"


# -- truth from the world -----------------------------------------------------------------------
class Claimer:
    """Does nothing at all, and claims what a correct run of the workload ends with."""

    def __init__(self, env: Any) -> None:
        self.jobs: dict[str, str] = {}

    def submit(self, job: Any) -> Any:
        self.jobs[job["job_id"]] = {"coding": "completed"}.get(job["workload"], "needs_human")
        return {"accepted": True}

    def report(self, job_id: str) -> Any:
        return {"job_id": job_id, "task_version": "1", "outcome": self.jobs.get(job_id, "running"), "operations": []}

    def step(self) -> bool:
        return False

    def receive_webhook(self, headers: Any, body: bytes) -> int:
        return 200


def claimer(env: Any) -> Claimer:
    return Claimer(env)


@pytest.mark.parametrize(("driver", "scenario"), [driver_param(d, s, id=s.id) for d in DRIVERS
                                                  for s in load_scenarios([SCENARIOS]) if not s.sweep])
def test_a_candidate_that_does_nothing_and_claims_success_fails_every_scenario(driver: str, scenario: Any) -> None:
    doc = run_scenario(scenario, f"{__name__}:claimer")
    assert doc["verdict"] == "fail" and doc["exit_code"] == 1, doc["reproduce"]
    wrong = next(c for c in doc["checkers"] if c["name"] == "wrong_outcome")
    assert wrong["verdict"] == "fail" and "the world shows 'failed'" in wrong["because"]


class RetryingClient(httpx.Client):
    """Retries a POST refused with 403 once, as some teams do behind a flaky firewall."""

    def send(self, request: httpx.Request, **kwargs: Any) -> httpx.Response:
        response = super().send(request, **kwargs)
        if response.status_code == 403 and request.method == "POST":
            response = super().send(request, **kwargs)
        return response


class RetriesForbidden(ReferencePlane):
    def __init__(self, env: Any) -> None:
        super().__init__(dataclasses.replace(env, http=RetryingClient(transport=env.http._transport)))


def retries_forbidden(env: Any) -> RetriesForbidden:
    return RetriesForbidden(env)


class ClaimsCompleted(ReferencePlane):
    """The reference, except that a failed job is reported as completed."""

    def report(self, job_id: str) -> Any:
        report = dict(super().report(job_id))
        if report.get("outcome") == "failed":
            report["outcome"] = "completed"
        return report


def claims_completed(env: Any) -> ClaimsCompleted:
    return ClaimsCompleted(env)


def test_a_candidate_that_retries_a_403_into_a_finished_draft_is_not_failed() -> None:
    scenario = load_scenario(HERE / "scenarios" / "firewall-once.yaml")
    doc = run_scenario(scenario, f"{__name__}:retries_forbidden")
    assert doc["verdict"] == "pass", [c for c in doc["checkers"] if c["verdict"] != "pass"]
    assert doc["outcome"] == {"expected": "from_world", "truth": "needs_human", "claimed": "needs_human"}
    # the reference does not retry a 403: the world shows the job failed, and it says so
    reference = run_scenario(scenario, "reference")
    assert reference["verdict"] == "pass" and reference["outcome"]["truth"] == "failed"


def test_a_candidate_that_calls_a_refused_draft_completed_is_failed() -> None:
    doc = run_scenario(load_scenario(SCENARIOS / "turn-done-business-failed.yaml"), f"{__name__}:claims_completed")
    wrong = next(c for c in doc["checkers"] if c["name"] == "wrong_outcome")
    assert doc["exit_code"] == 1 and wrong["verdict"] == "fail"
    assert "claimed outcome 'completed', but the world shows 'failed'" in wrong["because"]


def test_refused_requests_are_not_unreported_effects() -> None:
    doc = run_scenario(load_scenario(SCENARIOS / "wordpress-down.yaml"), "reference")
    unreported = next(c for c in doc["checkers"] if c["name"] == "unreported_effects")
    assert unreported["verdict"] == "pass" and unreported["count"] == 0
