"""Property tests: any valid documents render, as Markdown and as JUnit XML that parses, unchanged by
the order the runs are given in."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest
from _strategies import report_doc, run_doc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from durable_harness.reports import render_junit, render_summary, validate_report, validate_run

Doc = dict[str, Any]
_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def _report(draw: st.DrawFn) -> tuple[list[Doc], Doc | None]:
    runs = draw(st.lists(run_doc(), max_size=4))
    index = draw(st.none() | report_doc([str(run["scenario"]["id"]) for run in runs]))
    return runs, index


@pytest.mark.slow  # a property sweep of seconds: `make test` runs it
@_SETTINGS
@given(run_doc())
def test_the_strategy_builds_valid_runs(run: Doc) -> None:
    validate_run(run)


@_SETTINGS
@given(report_doc())
def test_the_strategy_builds_valid_indexes(index: Doc) -> None:
    validate_report(index)


@pytest.mark.slow  # a property sweep of seconds: `make test` runs it
@_SETTINGS
@given(_report())
def test_any_valid_documents_render_without_raising(report: tuple[list[Doc], Doc | None]) -> None:
    runs, index = report
    summary = render_summary(runs, index)
    summary.encode("utf-8")  # strict: a lone surrogate in a document must not reach the page
    assert summary.endswith("\n") and not summary.endswith("\n\n")
    junit = render_junit(runs, index)
    root = ET.fromstring(junit.encode("utf-8"))
    cases = root.findall("testsuite/testcase")
    planned = set(index["scenarios"]) if index is not None else set()
    assert len(cases) == len(runs) + len(planned - {run["scenario"]["id"] for run in runs})
    assert int(root.attrib["failures"]) + int(root.attrib["errors"]) == sum(1 for run in runs if run["verdict"] != "pass"
                                                                            or run["error"] is not None)
    assert render_summary(list(reversed(runs)), index) == summary
    assert render_junit(list(reversed(runs)), index) == junit
