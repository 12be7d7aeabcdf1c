"""The six verdict fields of a run are one ``Judgement``: derived, so they cannot disagree. A sweep's
fold agrees with the rule of the whole (``combine``, ``worst_exit``) for every mix of runs; a
checker's name and class come from its registration, and a checker that returns anything but a
``Finding`` is the harness's error, never the candidate's pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from durable_harness.harness import History, load_scenario
from durable_harness.harness.checkers import CheckInput, checker_names, checkers, run_checkers
from durable_harness.harness.checkers._base import _CHECKERS, Checker, failed
from durable_harness.harness.verdict import VERDICTS, Judgement, combine, exit_code, worst_exit

SCENARIO = load_scenario(Path(__file__).parents[2] / "durable_harness" / "scenarios" / "lost-draft-response.yaml")
JOB = {"job_id": "job-1", "task_version": "1", "workload": "article", "input": {"images": 1}}
ERROR = {"kind": "candidate", "detail": None, "message": "it would not start"}

verdicts = st.sampled_from(VERDICTS)
results = st.lists(st.tuples(st.sampled_from(("safety", "liveness")), verdicts), max_size=6)


@given(results, st.booleans())
def test_a_runs_fields_follow_from_its_checkers_and_its_error(pairs: list[tuple[str, str]], errored: bool) -> None:
    fields = Judgement.of(pairs, ERROR if errored else None).fields()
    assert list(fields) == ["verdict", "safety", "liveness", "exit_code", "complete", "error"]
    assert fields["complete"] is (not errored) and (fields["error"] is not None) is errored
    assert fields["exit_code"] == (3 if errored else exit_code(fields["safety"], fields["liveness"], False))
    assert fields["verdict"] == combine([fields["safety"], fields["liveness"], *(["unknown"] if errored else [])])
    if errored:  # an unjudged run proves nothing: nothing passes, and a failure found before stays one
        assert "pass" not in (fields["verdict"], fields["safety"], fields["liveness"])
    for klass in ("safety", "liveness"):
        judged = [v for k, v in pairs if k == klass]
        assert fields[klass] == combine(judged) or (errored and combine(judged) == "pass" and fields[klass] == "unknown")


@given(st.lists(st.tuples(results, st.booleans()), min_size=1, max_size=5))
def test_a_sweeps_fold_is_the_worst_of_its_points(points: list[tuple[list[tuple[str, str]], bool]]) -> None:
    docs = [Judgement.of(pairs, {**ERROR, "message": f"point {n}"} if errored else None).fields()
            for n, (pairs, errored) in enumerate(points)]
    folded = Judgement.fold(docs).fields()
    assert folded["exit_code"] == worst_exit(d["exit_code"] for d in docs)  # 1 beats 3 beats 2 beats 0
    assert folded["verdict"] == combine(d["verdict"] for d in docs)
    assert folded["safety"] == combine(d["safety"] for d in docs)
    assert folded["liveness"] == combine(d["liveness"] for d in docs)
    first_error = next((d["error"] for d in docs if d["error"]), None)
    assert folded["error"] == (first_error if folded["exit_code"] == 3 else None)


def test_an_unjudged_run_is_unknown_with_exit_3() -> None:
    fields = Judgement.unjudged(ERROR).fields()
    assert (fields["verdict"], fields["safety"], fields["liveness"], fields["exit_code"], fields["complete"]) == (
        "unknown", "unknown", "unknown", 3, False)


def test_the_registry_names_and_classes_what_a_checker_found() -> None:
    inp = CheckInput(History(), {"wordpress": {"posts": []}}, None, SCENARIO, JOB, [])
    for result in run_checkers(inp):
        registered = _CHECKERS.get(result.name)
        assert (result.klass, result.rank) == (registered.klass, registered.rank)
    ranked = [c.name for c in checkers()]
    assert ranked == checker_names() and ranked[:3] == ["duplicate_drafts", "duplicate_media", "duplicate_effects"]
    assert ranked.index("wrong_outcome") < ranked.index("abandoned_jobs")  # the acceptance table's first, then by name


def test_a_checker_that_returns_no_finding_is_a_harness_error_never_a_pass() -> None:
    def liar(_inp: Any) -> Any:
        return {"verdict": "pass"}  # what it found, but not as a Finding: the engine cannot trust it

    def bad_verdict(_inp: Any) -> Any:
        return failed(1, "x").__class__("green", 0, "all good")  # type: ignore[arg-type]

    inp = CheckInput(History(), {}, None, SCENARIO, JOB, [])
    for fn in (liar, bad_verdict):
        try:
            _CHECKERS.add("liar", Checker("liar", "safety", fn))
            (r,) = run_checkers(inp, ["liar"])
        finally:
            _CHECKERS._entries.pop("liar", None)
        assert r.verdict == "unknown" and r.crashed is not None and "not a Finding" in r.crashed
        assert "not of the candidate" in r.because
