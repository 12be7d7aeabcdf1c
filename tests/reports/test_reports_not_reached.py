"""A sweep's crash point that its real-time run never reached is coverage in every renderer: named,
explained, and never a failure or an unknown."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from _run_docs import build_run, failing, swept_in_real_time
from durable_harness.harness._cli_output import run_lines
from durable_harness.reports import render_html, render_junit, render_summary, validate_run
from durable_harness.reports.allure import allure_description

RUN = swept_in_real_time(build_run("baseline-crash-points"))
WHY = "ended its chaos after 51 requests, before * *.* #52"


def test_the_document_is_valid_and_passes() -> None:
    validate_run(RUN)
    assert RUN["verdict"] == "pass" and RUN["exit_code"] == 0


def test_the_summary_names_the_points_and_says_why() -> None:
    text = render_summary([RUN])
    assert "crash: not reached" in text  # the matrix's faults cell
    assert "*not reached*" in text and "ended its chaos after 51 requests" in text  # the coverage table
    failed = render_summary([failing(RUN)])  # a run's own section is for runs that did not pass
    assert "not reached (past the end of their own run, in real time): `52:before`, `52:after`" in failed


def test_junit_lists_them_in_system_out_of_a_passing_case() -> None:
    case = next(ET.fromstring(render_junit([RUN])).iter("testcase"))
    assert case.find("failure") is None and case.find("error") is None
    out = case.find("system-out")
    assert out is not None and out.text is not None
    assert out.text.count("was not reached: this run, in real time, " + WHY) == 2


def test_the_html_coverage_says_why() -> None:
    html = render_html([RUN])
    assert html.count(WHY) == 2 and "crash: not reached" in html and "f-not_reached" in html


def test_allure_and_the_progress_line_say_not_reached() -> None:
    assert "Not tested: `crash` at `* *.* #52`: this run, in real time, " + WHY in allure_description(RUN)
    assert "not reached: 2 crash points" in run_lines(RUN)[0]  # two crashes: the points are counted


def test_the_progress_line_names_faults_not_reached_by_kind_unless_they_are_crash_points() -> None:
    faults = [{**f, "kind": "error_after_commit"} for f in RUN["faults"]]
    line = run_lines({**RUN, "faults": faults})[0]
    assert "not reached: error_after_commit" in line and "crash point" not in line
