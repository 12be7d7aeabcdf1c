"""load_report and write_outputs: a report folder in, summary.md, junit.xml and report.html out, no rerun."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from _run_docs import build_index, build_run

from durable_harness.reports import (Report, ReportFiles, ReportMixError, load_report, load_runs, render_html, render_junit,
                     render_summary, write_outputs)

Doc = dict[str, Any]


def _write_report(root: Path, runs: list[Doc], index: Doc | None = None) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for run in runs:
        folder = root / f"{run['scenario']['id']}--{run['candidate']['spec'].replace(':', '_')}"
        folder.mkdir(parents=True)
        (folder / "run.json").write_text(json.dumps(run, indent=2), encoding="utf-8")
        (folder / "history.jsonl").write_text("", encoding="utf-8")
    if index is not None:
        (root / "report.json").write_text(json.dumps(index, indent=2), encoding="utf-8")


def _ids(runs: list[Doc]) -> list[str]:
    return [r["scenario"]["id"] for r in runs]


def test_load_finds_validates_and_sorts(tmp_path: Path, runs: list[Doc]) -> None:
    _write_report(tmp_path, runs)
    (tmp_path / "deeper" / "nested").mkdir(parents=True)
    (tmp_path / "deeper" / "nested" / "run.json").write_text("not even json", encoding="utf-8")  # not */run.json
    report = load_report(tmp_path)
    assert report.index is None
    assert _ids(report.runs) == ["bad_candidate", "baseline_article", "lost_write", "stream_drop"]
    assert load_runs(str(tmp_path)) == report.runs


def test_load_reads_the_index(tmp_path: Path, runs: list[Doc]) -> None:
    index = build_index(["baseline_article", "lost_write", "stream_drop", "bad_candidate"])
    _write_report(tmp_path, runs, index)
    assert load_report(tmp_path) == Report(index=index, runs=load_runs(tmp_path))


def test_an_index_with_no_runs_yet_is_a_partial_report(tmp_path: Path) -> None:
    index = build_index(["a", "b"], completed=0, interrupted_by="SIGINT")
    _write_report(tmp_path, [], index)
    assert load_report(tmp_path) == Report(index=index, runs=[])


def test_same_scenario_sorts_by_seed(tmp_path: Path) -> None:
    runs = [build_run("s", seed=9), build_run("t", seed=1)]
    runs[0]["scenario"]["id"], runs[1]["scenario"]["id"] = "s", "s"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "run.json").write_text(json.dumps(runs[0]), encoding="utf-8")
    (tmp_path / "b" / "run.json").write_text(json.dumps(runs[1]), encoding="utf-8")
    assert [r["seed"] for r in load_runs(tmp_path)] == [1, 9]


def test_a_folder_of_two_candidates_is_refused(tmp_path: Path) -> None:
    _write_report(tmp_path, [build_run("a"), build_run("b", candidate="mutant:blind-retry")])
    with pytest.raises(ReportMixError, match=r"mutant:blind-retry@1a2b3c4d5e6f .* x 1 run"):
        load_report(tmp_path)


def test_a_stale_run_beside_the_index_is_refused(tmp_path: Path) -> None:
    _write_report(tmp_path, [build_run("a"), build_run("old")], build_index(["a"]))
    with pytest.raises(ReportMixError, match="did not plan: old"):
        load_report(tmp_path)


def test_write_then_rebuild_roundtrip(tmp_path: Path, runs: list[Doc]) -> None:
    index = build_index(["baseline_article", "lost_write", "stream_drop", "bad_candidate", "later"],
                        completed=4, interrupted_by="SIGTERM")
    _write_report(tmp_path, runs, index)
    report = load_report(tmp_path)
    written = write_outputs(tmp_path, report.runs, report.index)
    assert written == [tmp_path / "summary.md", tmp_path / "junit.xml", tmp_path / "report.html"]
    summary, junit, html = (path.read_bytes() for path in written)
    assert summary == render_summary(runs, index).encode("utf-8")
    assert junit == render_junit(runs, index).encode("utf-8")
    assert html == render_html(runs, index, ReportFiles(tmp_path)).encode("utf-8")
    assert summary.startswith(b"> **PARTIAL REPORT: 4 of 5 scenarios ran; interrupted by SIGTERM")
    ET.fromstring(junit)
    # `durable-harness render DIR`: outputs do not confuse the loader and rebuild byte-identical.
    again = load_report(tmp_path)
    write_outputs(tmp_path, again.runs, again.index)
    assert [p.read_bytes() for p in written] == [summary, junit, html]
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["junit.xml", "report.html", "report.json",
                                                                          "summary.md"]


def test_write_outputs_refuses_a_mix_and_writes_nothing(tmp_path: Path) -> None:
    runs = [build_run("a"), build_run("b", version="0.3.0")]
    with pytest.raises(ReportMixError, match=r"\(harness 0.3.0 4f5e6d7c8b9a\) x 1 run"):
        write_outputs(tmp_path, runs)
    with pytest.raises(ReportMixError, match="report.json says"):
        write_outputs(tmp_path, [build_run("a")], build_index(["a"], candidate="other"))
    assert list(tmp_path.iterdir()) == []


def test_invalid_document_names_its_file_and_path(tmp_path: Path) -> None:
    bad = build_run("lost_write")
    bad["checkers"][1]["verdict"] = "green"
    _write_report(tmp_path, [build_run("fine"), bad])
    expected = r"lost_write--reference/run.json: 1 problem:\n  \$\.checkers\[1\]\.verdict: 'green'"
    with pytest.raises(ValueError, match=expected):
        load_report(tmp_path)


def test_a_run_at_1_in_the_folder_is_refused_by_name(tmp_path: Path) -> None:
    _write_report(tmp_path, [build_run("fine")])
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "run.json").write_text(json.dumps({"format": "durable-harness/run@1", "reproduce": "rerun"}),
                                                encoding="utf-8")
    with pytest.raises(ValueError, match=r"^old/run.json: written by an older harness .* rewrite it: rerun$"):
        load_report(tmp_path)


def test_invalid_index_names_its_file(tmp_path: Path) -> None:
    index = build_index(["a"])
    index["completed"] = 2
    _write_report(tmp_path, [build_run("a")], index)
    with pytest.raises(ValueError, match=r"^report.json: 1 problem:\n  \$\.completed: 2 but only 1"):
        load_report(tmp_path)


@pytest.mark.parametrize("text", ["{", '{"seed": NaN}', "\udcff"], ids=["truncated", "nan", "not-utf8"])
def test_unreadable_json_names_its_file(tmp_path: Path, text: str) -> None:
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "run.json").write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(ValueError, match=r"^broken/run.json: not valid JSON"):
        load_report(tmp_path)


def test_empty_report_dir_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"holds no report.json and no \*/run.json"):
        load_report(tmp_path)


def test_missing_report_dir_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_report(tmp_path / "nope")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        write_outputs(tmp_path / "nope", [build_run("x")])


def test_bad_run_writes_nothing(tmp_path: Path) -> None:
    bad = build_run("x")
    bad["seed"] = "seven"
    with pytest.raises(ValueError, match=r"\$\.seed: 'seven' is not of type 'integer'"):
        write_outputs(tmp_path, [bad])
    assert list(tmp_path.iterdir()) == []
