"""render_junit: parses with ElementTree; failures, errors (typed by error kind) and their texts are
where CI looks; identity and fault status ride along as properties; coverage goes to system-out."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest
from _run_docs import (
    STREAM, build_index, build_run, claims_null, errored, failing, nondeterministic, not_exercised, raised, swept,
)

from durable_harness.reports import render_junit

Doc = dict[str, Any]


def _cases(xml: str) -> dict[str, ET.Element]:
    return {case.attrib["name"]: case for case in ET.fromstring(xml).iter("testcase")}


def _child(case: ET.Element, tag: str) -> ET.Element:
    found = case.find(tag)
    assert found is not None, f"no <{tag}> in {case.attrib['name']}"
    return found


def _props(case: ET.Element) -> dict[str, str]:
    return {p.attrib["name"]: p.attrib["value"] for p in case.iter("property")}


def test_one_suite_with_counts(runs: list[Doc]) -> None:
    root = ET.fromstring(render_junit(runs))
    suites = root.findall("testsuite")
    assert root.tag == "testsuites"
    assert [s.attrib["name"] for s in suites] == ["durable-harness"]
    for element in (root, suites[0]):
        counts = tuple(element.attrib[k] for k in ("tests", "failures", "errors", "skipped"))
        assert counts == ("4", "1", "2", "0")
    names = [(c.attrib["name"], c.attrib["classname"]) for c in suites[0].findall("testcase")]
    assert names == [("bad_candidate", "reference"), ("baseline_article", "reference"),
                     ("lost_write", "reference"), ("stream_drop", "reference")]


def test_failure_carries_because_witnesses_with_their_file_and_reproduce(runs: list[Doc]) -> None:
    failure = _child(_cases(render_junit(runs))["lost_write"], "failure")
    assert failure.attrib["type"] == "safety"
    assert failure.attrib["message"] == "safety fail: duplicate_drafts: 2 drafts for (job 1, v1, article); expected 1"
    text = failure.text or ""
    assert "[safety] duplicate_drafts: fail (count 1)" in text
    assert "  witness history.jsonl #19 t=4.500s worker-1 ok: POST /wp/v2/posts -> 201 id=8" in text
    assert text.endswith("reproduce: durable-harness run --candidate reference "
                         "--scenario durable_harness/scenarios/lost_write.yaml --seed 7")


@pytest.mark.parametrize("kind", ["harness", "candidate", "setup", "interrupted"])
def test_an_error_is_typed_by_its_kind(kind: str) -> None:
    case = _cases(render_junit([errored(build_run("bad"), kind, detail="line 1\nline 2")]))["bad"]
    error = _child(case, "error")
    assert error.attrib["type"] == kind
    assert case.find("failure") is None
    assert _props(case)["error.kind"] == kind
    assert "  detail:\n    line 1\n    line 2" in (error.text or "")


def test_a_harness_error_says_it_is_not_the_candidates_fault() -> None:
    error = _child(_cases(render_junit([errored(build_run("bad"), "harness")]))["bad"], "error")
    assert error.attrib["message"] == ("an error of the harness, not of the candidate: "
                                       "harness crashed while checking: KeyError: 'posts'")


def test_unknown_run_is_an_error_typed_unknown(runs: list[Doc]) -> None:
    error = _child(_cases(render_junit(runs))["stream_drop"], "error")
    assert error.attrib["type"] == "unknown"
    assert error.attrib["message"] == "safety unknown: faults_fired: scheduled 1 fault never fired"
    assert ("fault lose_response at nth POST /wp/v2/posts = 1 (after_commit) did not fire: scheduled 1, fired 0, "
            "3 requests seen on POST wordpress /wp/v2/posts") in (error.text or "")


def test_passing_case_has_identity_and_fault_status_properties(runs: list[Doc]) -> None:
    case = _cases(render_junit(runs))["baseline_article"]
    assert [child.tag for child in case] == ["properties"]
    props = _props(case)
    assert props["seed"] == "7"
    assert props["harness.version"] == "0.2.0"
    assert props["harness.commit"] == "4f5e6d7c8b9a" + "1" * 28
    assert props["candidate.digest"] == "1a2b3c4d5e6f" + "0" * 52
    assert props["fault.0.status"] == "fired"
    assert props["counter.duplicate_drafts"] == "0"
    assert "error.kind" not in props
    assert props["reproduce"].startswith("durable-harness run --candidate reference")


def test_missing_commit_and_digest_are_empty_properties() -> None:
    props = _props(_cases(render_junit([build_run("a", digest=None, commit=None)]))["a"])
    assert (props["harness.commit"], props["candidate.digest"]) == ("", "")


def test_not_exercised_faults_go_to_system_out_of_a_passing_case() -> None:
    case = _cases(render_junit([not_exercised(build_run("poll"))]))["poll"]
    assert [child.tag for child in case] == ["properties", "system-out"]
    assert _props(case)["fault.1.status"] == "not_exercised"
    assert _child(case, "system-out").text == (
        f"fault 1 drop_stream at nth GET /events = 1 was not exercised: the candidate never used {STREAM} "
        "(coverage, not a failure: not tested)")


def test_candidate_exceptions_sweep_and_judged_from_are_in_the_body() -> None:
    cases = _cases(render_junit([swept(raised(build_run("r"))), claims_null(build_run("c"))]))
    body = _child(cases["r"], "failure").text or ""
    assert "candidate raised KeyError in step at history.jsonl #84: 'job-1'\n  durable_harness/candidates/reference/_loop.py:40" in body
    assert "crash-point sweep: 34 points, 32 passed; failing: 17:after, 18:before" in body
    assert "witness points/baseline-crash-17-after/history.jsonl #12" in body
    silent = _child(cases["c"], "failure")
    assert silent.attrib["type"] == "liveness"
    assert "judged from the final ground truth (truth) and no final report (claims is null)" in (silent.text or "")


def test_a_determinism_failure_shows_both_lines() -> None:
    error = _child(_cases(render_junit([nondeterministic(build_run("n"))]))["n"], "error")
    assert error.attrib["message"] == "unknown: the same seed gave two different histories"
    assert "first difference at entry 17; differing paths: data.body.id" in (error.text or "")
    assert '  second: {"data":{"body":{"id":9}}' in (error.text or "")


def test_scenarios_the_index_planned_but_did_not_run_are_skipped() -> None:
    index = build_index(["a", "b", "c"], completed=1, interrupted_by="SIGINT")
    root = ET.fromstring(render_junit([build_run("a")], index))
    assert (root.attrib["tests"], root.attrib["skipped"]) == ("3", "2")
    skipped = _child(_cases(render_junit([build_run("a")], index))["c"], "skipped")
    assert skipped.attrib["message"] == "not run (interrupted by SIGINT); nothing is known about this scenario"


def test_markup_and_control_characters_still_parse() -> None:
    run = failing(build_run("x<&>\"y"))
    run["checkers"][0]["because"] = "bad <tag> & \"quote\" \x01\x1b ]]> \ud800"
    run["checkers"][0]["witnesses"][0]["summary"] = "\x00nul"
    failure = _child(_cases(render_junit([run]))["x<&>\"y"], "failure")
    assert failure.attrib["message"].endswith("bad <tag> & \"quote\" \\x01\\x1b ]]> \\xd800")
    assert "\\x00nul" in (failure.text or "")


def test_equal_input_gives_identical_output(runs: list[Doc]) -> None:
    assert render_junit(runs) == render_junit(list(reversed(runs)))
    assert render_junit(runs).startswith('<?xml version="1.0" encoding="utf-8"?>\n<testsuites ')


def test_no_runs_is_an_empty_suite() -> None:
    root = ET.fromstring(render_junit([]))
    assert root.find("testsuite") is not None
    assert root.attrib["tests"] == "0"
