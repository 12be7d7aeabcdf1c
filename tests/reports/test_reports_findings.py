"""findings: what did not pass, most serious first, and the top of summary.md that shows them."""

from __future__ import annotations

import copy
from typing import Any

from _run_docs import build_index, build_run, claims_null, errored, failing, nondeterministic, unknown
from durable_harness.reports import findings, render_summary

Doc = dict[str, Any]


def test_findings_are_ordered_as_exit_codes_win_and_grouped_by_counter() -> None:
    runs = [unknown(build_run("u")), claims_null(build_run("l")), errored(build_run("e"), "setup"),
            failing(build_run("f1")), failing(build_run("f2")), nondeterministic(build_run("d"))]
    found = findings(runs)
    assert [(f.name, f.verdict) for f in found] == [
        ("duplicate_drafts", "fail"), ("error: setup", "error"), ("stuck_jobs", "fail"), ("faults_fired", "unknown"),
        ("verdict", "unknown"),
    ]
    assert found[0].scenarios == ["f1", "f2"] and found[0].items[0].witnesses
    assert found[-1].items[0].because == "the same seed gave two different histories"
    assert found[1].items[0].because.startswith("the scenario cannot run against this candidate: the scenario needs")


def test_a_passing_report_has_no_findings() -> None:
    assert findings([build_run("a"), build_run("b")]) == []


def _many_findings() -> list[Doc]:
    runs = []
    for n in range(30):
        run = failing(build_run(f"s{n:02d}"))
        run["liveness"] = "fail"
        for k in range(12):  # twelve different counters fail in every run
            name = f"counter_{k:02d}"
            run["counters"][name] = 1
            run["checkers"].append({"name": name, "class": "safety" if k % 2 else "liveness", "verdict": "fail",
                                    "count": 1, "because": "because " * 20, "witnesses": []})
        runs.append(copy.deepcopy(run))
    return runs


def test_summary_md_opens_with_the_verdict_and_top_findings_in_under_30_lines() -> None:
    runs = _many_findings()
    lines = render_summary(runs, build_index([r["scenario"]["id"] for r in runs])).splitlines()
    matrix = next(n for n, line in enumerate(lines) if line.startswith("| scenario |"))
    assert matrix < 30, "\n".join(lines[:matrix])
    top = lines[:matrix]
    assert top[0].startswith("## ❌ durable-harness: fail, exit code 1")
    assert "### Top findings" in top
    assert top[top.index("### Top findings") + 2].startswith("1. ❌ **`duplicate_drafts`** (safety fail) in 30 scenarios")
    assert any(line.startswith("9. … and 5 more findings") for line in top)
    assert "; reproduce: `durable-harness run --candidate reference --scenario durable_harness/scenarios/s00.yaml --seed 7`" in top[
        top.index("### Top findings") + 2]


def test_a_passing_summary_has_no_findings_section() -> None:
    assert "Top findings" not in render_summary([build_run("a")])
