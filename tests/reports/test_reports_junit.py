"""render_junit: parses with ElementTree; failures, errors and their texts are where CI looks."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from _run_docs import build_run, failing

from reports import render_junit

Doc = dict[str, Any]


def _cases(xml: str) -> dict[str, ET.Element]:
    return {case.attrib["name"]: case for case in ET.fromstring(xml).iter("testcase")}


def test_one_suite_with_counts(runs: list[Doc]) -> None:
    root = ET.fromstring(render_junit(runs))
    suites = root.findall("testsuite")
    assert root.tag == "testsuites"
    assert [s.attrib["name"] for s in suites] == ["durable-harness"]
    for element in (root, suites[0]):
        assert (element.attrib["tests"], element.attrib["failures"], element.attrib["errors"]) == ("4", "1", "2")
    names = [(c.attrib["name"], c.attrib["classname"]) for c in suites[0].findall("testcase")]
    assert names == [("bad_candidate", "pkg.mod:factory"), ("baseline_article", "reference"),
                     ("lost_write", "mutant:blind-retry"), ("stream_drop", "reference")]


def test_failure_carries_because_witnesses_and_reproduce(runs: list[Doc]) -> None:
    failure = _cases(render_junit(runs))["lost_write"].find("failure")
    assert failure is not None
    assert failure.attrib["type"] == "safety"
    assert failure.attrib["message"] == (
        "safety fail: duplicate_drafts: 2 drafts for (job 1, v1, article); expected 1")
    text = failure.text or ""
    assert "[safety] duplicate_drafts: fail (count 1)" in text
    assert "  witness #19 t=4.500s worker-1 ok: POST /wp/v2/posts -> 201 id=8" in text
    assert text.endswith("reproduce: durable-harness run --candidate mutant:blind-retry "
                         "--scenario scenarios/lost_write.yaml --seed 7")


def test_unknown_and_harness_errors(runs: list[Doc]) -> None:
    cases = _cases(render_junit(runs))
    unknown = cases["stream_drop"].find("error")
    harness = cases["bad_candidate"].find("error")
    assert unknown is not None and harness is not None
    assert unknown.attrib["type"] == "unknown"
    assert unknown.attrib["message"] == "unknown: scheduled faults did not fire: lose_response"
    assert harness.attrib["type"] == "harness"
    assert harness.attrib["message"] == "the harness could not run: candidate 'pkg.mod:factory' would not start:"
    assert "ImportError: no module named 'pkg'" in (harness.text or "")
    assert cases["bad_candidate"].find("failure") is None


def test_passing_case_has_only_properties(runs: list[Doc]) -> None:
    case = _cases(render_junit(runs))["baseline_article"]
    assert [child.tag for child in case] == ["properties"]
    props = {p.attrib["name"]: p.attrib["value"] for p in case.iter("property")}
    assert props["seed"] == "7"
    assert props["counter.duplicate_drafts"] == "0"
    assert props["reproduce"].startswith("durable-harness run --candidate reference")


def test_liveness_only_failure_is_typed_liveness() -> None:
    run = build_run("stuck")
    run.update(verdict="fail", liveness="fail", exit_code=2)
    run["checkers"][2].update(verdict="fail", count=1, because="job 1 neither finished nor waiting at 600s")
    failure = _cases(render_junit([run]))["stuck"].find("failure")
    assert failure is not None
    assert failure.attrib["type"] == "liveness"
    assert failure.attrib["message"] == "liveness fail: no_stuck_jobs: job 1 neither finished nor waiting at 600s"


def test_markup_and_control_characters_still_parse() -> None:
    run = failing(build_run("x<&>\"y"))
    run["checkers"][0]["because"] = "bad <tag> & \"quote\" \x01\x1b ]]>"
    run["checkers"][0]["witnesses"][0]["summary"] = "\x00nul"
    xml = render_junit([run])
    case = _cases(xml)["x<&>\"y"]
    failure = case.find("failure")
    assert failure is not None
    assert failure.attrib["message"].endswith("bad <tag> & \"quote\" \\x01\\x1b ]]>")
    assert "\\x00nul" in (failure.text or "")


def test_equal_input_gives_identical_output(runs: list[Doc]) -> None:
    assert render_junit(runs) == render_junit(list(reversed(runs)))
    assert render_junit(runs).startswith('<?xml version="1.0" encoding="utf-8"?>\n<testsuites ')


def test_no_runs_is_an_empty_suite() -> None:
    root = ET.fromstring(render_junit([]))
    assert root.find("testsuite") is not None
    assert root.attrib["tests"] == "0"
