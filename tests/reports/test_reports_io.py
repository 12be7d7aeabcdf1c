"""load_runs and write_outputs: a report directory in, summary.md and junit.xml out, no rerun."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from _run_docs import build_run

from reports import load_runs, render_junit, render_summary, write_outputs
from reports._schema import run_key

Doc = dict[str, Any]


def _write_report(root: Path, runs: list[Doc]) -> None:
    for run in runs:
        folder = root / f"{run['scenario']['id']}--{run['candidate'].replace(':', '_')}"
        folder.mkdir(parents=True)
        (folder / "run.json").write_text(json.dumps(run, indent=2), encoding="utf-8")
        (folder / "history.jsonl").write_text("", encoding="utf-8")


def test_load_finds_validates_and_sorts(tmp_path: Path, runs: list[Doc]) -> None:
    _write_report(tmp_path, runs)
    (tmp_path / "deeper" / "nested").mkdir(parents=True)
    (tmp_path / "deeper" / "nested" / "run.json").write_text("not even json", encoding="utf-8")  # not */run.json
    loaded = load_runs(tmp_path)
    assert loaded == sorted(runs, key=run_key)
    assert [r["scenario"]["id"] for r in loaded] == ["bad_candidate", "baseline_article", "lost_write", "stream_drop"]


def test_same_scenario_sorts_by_candidate(tmp_path: Path) -> None:
    runs = [build_run("s", candidate="reference"), build_run("s", candidate="mutant:blind-retry")]
    _write_report(tmp_path, runs)
    assert [r["candidate"] for r in load_runs(str(tmp_path))] == ["mutant:blind-retry", "reference"]


def test_write_then_rebuild_roundtrip(tmp_path: Path, runs: list[Doc]) -> None:
    _write_report(tmp_path, runs)
    written = write_outputs(tmp_path, load_runs(tmp_path))
    assert written == [tmp_path / "summary.md", tmp_path / "junit.xml"]
    summary, junit = (path.read_bytes() for path in written)
    assert summary == render_summary(runs).encode("utf-8")
    assert junit == render_junit(runs).encode("utf-8")
    ET.fromstring(junit)
    # `durable-harness render DIR`: outputs do not confuse the loader and rebuild byte-identical.
    write_outputs(tmp_path, load_runs(tmp_path))
    assert [p.read_bytes() for p in written] == [summary, junit]
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["junit.xml", "summary.md"]


def test_invalid_document_names_its_file_and_path(tmp_path: Path) -> None:
    bad = build_run("lost_write")
    bad["checkers"][1]["verdict"] = "green"
    _write_report(tmp_path, [build_run("fine"), bad])
    expected = r"lost_write--reference/run.json: 1 problem:\n  \$\.checkers\[1\]\.verdict: 'green'"
    with pytest.raises(ValueError, match=expected):
        load_runs(tmp_path)


@pytest.mark.parametrize("text", ["{", '{"seed": NaN}', "\udcff"], ids=["truncated", "nan", "not-utf8"])
def test_unreadable_json_names_its_file(tmp_path: Path, text: str) -> None:
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "run.json").write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(ValueError, match=r"^broken/run.json: not valid JSON"):
        load_runs(tmp_path)


def test_empty_report_dir_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"holds no \*/run.json"):
        load_runs(tmp_path)


def test_missing_report_dir_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_runs(tmp_path / "nope")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        write_outputs(tmp_path / "nope", [build_run("x")])


def test_bad_run_writes_nothing(tmp_path: Path) -> None:
    bad = build_run("x")
    bad["seed"] = "seven"
    with pytest.raises(ValueError, match=r"\$\.seed: 'seven' is not of type 'integer'"):
        write_outputs(tmp_path, [bad])
    assert list(tmp_path.iterdir()) == []
