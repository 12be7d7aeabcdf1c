"""``check_report``: what a JobReport may be, and the ``invalid_reports`` checker that judges the rest."""

from __future__ import annotations

import enum
import functools
import json
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness import History, load_scenario
from durable_harness.harness.candidate._claims import INVALID_REPORT, MAX_CHARS, MAX_DEPTH, MAX_VALUES, check_report
from durable_harness.harness.checkers import CheckInput, run_checkers

SCENARIO = load_scenario(Path(__file__).parents[2] / "durable_harness" / "scenarios" / "baseline.yaml")
JOB = {"job_id": "job-1", "task_version": "1", "workload": "article", "input": {"images": 1}}
GOOD: dict[str, Any] = {
    "job_id": "job-1", "task_version": "1", "session_id": "sess_1", "worker_id": "worker-1", "outcome": "needs_human",
    "checkpoint": {"phase": "awaiting_approval", "artifacts": [{"role": "report", "uri": "a://1", "sha256": "ab"}],
                   "remote": {"wordpress_post_id": 12, "media_ids": [3, "4"]}, "next_allowed_actions": [],
                   "approval_status": "awaiting"},
    "operations": [{"operation_key": "k1", "kind": "wp_create_draft", "state": "CONFIRMED", "remote_id": "12",
                    "request_hash": "h"}],
    "resume_attempts": 0, "anything_else": {"is": ["recorded", 1.5, None, True]},
}


class Outcome(str, enum.Enum):
    NEEDS_HUMAN = "needs_human"


def _self_containing() -> dict[str, Any]:
    report: dict[str, Any] = {"outcome": "running"}
    report["again"] = report
    return report


class RaisingMapping(dict):  # type: ignore[type-arg]
    def items(self) -> Any:
        raise RuntimeError("cannot be read")


def test_a_job_report_is_copied_to_plain_json() -> None:
    claims, problem = check_report(GOOD)
    assert problem is None and claims == GOOD and claims is not GOOD
    assert claims["checkpoint"] is not GOOD["checkpoint"]  # nothing shared with the candidate's object
    enum_claims, _ = check_report({**GOOD, "outcome": Outcome.NEEDS_HUMAN})
    assert enum_claims is not None and type(enum_claims["outcome"]) is str and enum_claims["outcome"] == "needs_human"
    minimal, problem = check_report({"outcome": "running"})
    assert minimal == {"outcome": "running"} and problem is None


@pytest.mark.parametrize(("report", "expected"), [
    (None, "report() returned None, not a JobReport"),
    ("fine, thanks", "report() returned 'fine, thanks', not a JobReport"),
    ([GOOD], "report() returned a list of 1, not a JobReport"),
    (object(), "report() returned a value of type object, not a JobReport"),
    ({}, "$: no outcome"),
    ({"outcome": "done"}, "$.outcome: 'done' is not one of running, completed"),
    ({"outcome": 3}, "$.outcome: 3 is not one of"),
    ({**GOOD, "resume_attempts": float("nan")}, "$.resume_attempts: nan is not a JSON number"),
    ({**GOOD, "resume_attempts": -1}, "$.resume_attempts: -1 is not a non-negative integer"),
    ({**GOOD, "anything_else": float("inf")}, "$.anything_else: inf is not a JSON number"),
    ({**GOOD, "anything_else": 10**30}, "$.anything_else: an integer beyond 64 bits"),
    ({**GOOD, "anything_else": "x" * (MAX_CHARS + 1)}, f"more than {MAX_CHARS} characters of text"),
    ({**GOOD, "anything_else": list(range(MAX_VALUES + 1))}, f"more than {MAX_VALUES} values"),
    ({**GOOD, "anything_else": "\ud800"}, "is not valid Unicode"),
    ({**GOOD, "anything_else": {1: "a"}}, "$.anything_else: key 1 is not a string"),
    ({**GOOD, "anything_else": b"bytes"}, "$.anything_else: a value of type bytes is not a JSON value"),
    (_self_containing(), f"nested deeper than {MAX_DEPTH} levels"),
    ({**GOOD, "job_id": 7}, "$.job_id: 7 is not a string"),
    ({**GOOD, "task_version": 1.5}, "$.task_version: 1.5 is not a string"),
    ({**GOOD, "checkpoint": "draft_created"}, "$.checkpoint: 'draft_created' is not an object"),
    ({**GOOD, "checkpoint": {"remote": [12]}}, "$.checkpoint.remote: a list of 1 is not an object"),
    ({**GOOD, "checkpoint": {"remote": {"media_ids": "3,4"}}}, "$.checkpoint.remote.media_ids: '3,4' is not a list"),
    ({**GOOD, "checkpoint": {"remote": {"media_ids": [3, None]}}}, "$.checkpoint.remote.media_ids[1]: None is not an id"),
    ({**GOOD, "checkpoint": {"artifacts": ["x"]}}, "$.checkpoint.artifacts[0]: 'x' is not an object"),
    ({**GOOD, "operations": "all done"}, "$.operations: 'all done' is not a list"),
    ({**GOOD, "operations": [{"operation_key": "k", "kind": "wp"}]}, "$.operations[0].state: missing"),
    ({**GOOD, "operations": [{"operation_key": "k", "kind": "wp", "state": "DONE"}]}, "$.operations[0].state: 'DONE'"),
    ({**GOOD, "operations": [{"kind": "wp", "state": "SENT"}]}, "$.operations[0].operation_key: None is not a string"),
    (RaisingMapping(outcome="running"), "a mapping that raised RuntimeError when read: cannot be read"),
])
def test_anything_else_is_a_one_line_problem_naming_the_field(report: Any, expected: str) -> None:
    claims, problem = check_report(report)
    assert claims is None and problem is not None
    assert expected in problem and "\n" not in problem and len(problem) < 400, problem
    assert " at 0x" not in problem  # no address: histories stay the same from run to run


def _check(history: History) -> Any:
    return run_checkers(CheckInput(history, {}, None, SCENARIO, JOB, []), ["invalid_reports"])[0]


def test_invalid_reports_fails_on_each_recorded_refusal_with_its_witness() -> None:
    h = History()
    h.append(1.0, "report", "worker-1", {"outcome": "running"})
    clean = _check(h)
    assert (clean.verdict, clean.count) == ("pass", 0) and "1 recorded report" in clean.because
    h.append(2.0, "note", "worker-1", {INVALID_REPORT: "report() returned None, not a JobReport"})
    h.append(3.0, "note", "worker-1", {"because": "something else"})
    h.append(4.0, "note", "worker-1", {INVALID_REPORT: "report() returned an invalid JobReport: $.outcome: 5"})
    r = _check(h)
    assert (r.klass, r.verdict, r.count) == ("safety", "fail", 2)
    assert "2 answers to report() were not a JobReport" in r.because and "returned None" in r.because
    assert [w.index for w in r.witnesses] == [1, 3]


@pytest.mark.parametrize("report", [
    {"outcome": "done", "operations": [{"operation_key": "k", "kind": "x", "state": "CONFIRMED", "n": 2**63}]},
    {"outcome": "done", "nested": [[[{"a": 1.5, "b": None, "c": True}]]], "t": ("a", "b")},
    {"outcome": "done", "big": 2**64}, {"outcome": "done", "nan": float("nan")}, {"outcome": "done", 1: "x"},
    {"outcome": "done", "s": "\ud800"}, {"outcome": "done", "deep": functools.reduce(lambda v, _: [v], range(40), 0)},
    {"outcome": "done", "long": "x" * (1024 * 1024)}, {"outcome": "done", "set": {1, 2}},
])
def test_the_fast_copy_is_the_careful_copy_or_leaves_it_to_it(report: dict[str, Any]) -> None:
    """A report of plain values is copied fast; anything to say about it goes to the careful copy,
    whose message is the one given: both paths give one result."""
    from durable_harness.harness.candidate._claims import _fast_copy, _Plain

    fast = _fast_copy(report)
    try:
        careful: Any = _Plain().copy(report)
    except Exception as refused:
        careful = refused
    if fast is not None:
        assert fast == careful and json.dumps(fast) == json.dumps(careful)
    else:  # every report here that the fast copy leaves is one the careful copy refuses
        assert isinstance(careful, Exception), careful
