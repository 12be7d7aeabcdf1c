"""Allure results: one test per run, the same facts the pytest plugin hands to allure-pytest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _histories import synthetic_history, write_folder
from _run_docs import build_index, build_run, errored, failing, unknown
from durable_harness.reports import ReportFiles, clean_allure_dir, write_allure
from durable_harness.reports.allure import allure_labels, allure_status, attachments

Doc = dict[str, Any]


def test_status_is_passed_failed_or_broken() -> None:
    assert allure_status(build_run("a")) == "passed"
    assert allure_status(failing(build_run("a"))) == "failed"
    assert allure_status(unknown(build_run("a"))) == "broken"  # nothing was proven either way
    assert allure_status(errored(build_run("a"), "harness")) == "broken"


def test_labels_carry_the_verdicts_and_every_counter_and_tag_what_did_not_pass() -> None:
    labels = allure_labels(failing(build_run("a")))
    assert ("verdict", "fail") in labels and ("safety", "fail") in labels and ("seed", "7") in labels
    assert ("counter.duplicate_drafts", "1") in labels and ("counter.duplicate_media", "0") in labels
    assert [v for k, v in labels if k == "tag"] == ["duplicate_drafts=1"]
    assert ("severity", "critical") in labels and ("suite", "reference") in labels


def test_write_allure_writes_one_result_per_run_with_its_attachments(tmp_path: Path) -> None:
    runs = [failing(build_run("a")), build_run("b")]
    folder = write_folder(tmp_path / "report", runs, build_index(["a", "b"]), {"a": synthetic_history(30)})
    out = tmp_path / "allure"
    written = write_allure(out, runs, build_index(["a", "b"]), ReportFiles(folder))
    results = {json.loads(p.read_text())["name"]: json.loads(p.read_text()) for p in written}
    assert sorted(results) == ["a", "b"]
    a = results["a"]
    assert a["status"] == "failed" and a["statusDetails"]["message"].startswith("safety fail: duplicate_drafts:")
    assert "reproduce: durable-harness run --candidate reference" in a["statusDetails"]["trace"]
    assert [x["name"] for x in a["attachments"]] == ["verdict", "because and witnesses", "history.jsonl",
                                                     "timeline.html", "run.json", "reproduce"]
    for x in a["attachments"]:
        assert (out / x["source"]).is_file()
    history = next(x for x in a["attachments"] if x["name"] == "history.jsonl")
    assert (out / history["source"]).read_bytes() == (folder / "a" / "history.jsonl").read_bytes()
    assert "history.jsonl" not in [x["name"] for x in results["b"]["attachments"]]  # b has none beside it
    assert a["start"] == 1796031981000  # the report's start, never the clock
    assert "candidate=reference" in (out / "environment.properties").read_text()
    again = tmp_path / "again"
    write_allure(again, runs, build_index(["a", "b"]), ReportFiles(folder))
    assert sorted(p.name for p in again.iterdir()) == sorted(p.name for p in out.iterdir())


def test_the_timeline_attachment_is_the_run_alone() -> None:
    (timeline,) = [a for a in attachments(failing(build_run("a"))) if a[0] == "timeline.html"]
    assert timeline[2] == "text/html" and b"durable-harness: fail, exit code 1" in timeline[1]


def test_clean_allure_dir_removes_only_allure_files(tmp_path: Path) -> None:
    for name in ("x-result.json", "y-container.json", "z-attachment.txt", "environment.properties", "notes.md"):
        (tmp_path / name).write_text("x")
    clean_allure_dir(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.md"]


def test_a_result_has_a_step_per_checker_a_duration_and_a_family(tmp_path: Path) -> None:
    run = failing(build_run("lost-draft-response"))
    [path] = write_allure(tmp_path, [run])
    result = json.loads(path.read_text())
    assert result["stop"] - result["start"] == round(run["timings"]["virtual_s"] * 1000)
    steps = {s["name"].split(":")[0]: s for s in result["steps"]}
    assert set(steps) == {c["name"] for c in run["checkers"]}
    failed = [s for s in result["steps"] if s["status"] == "failed"]
    assert failed and all(s["statusDetails"]["message"] for s in failed)
    labels = {lb["name"]: lb["value"] for lb in result["labels"]}
    assert labels["feature"] == run["scenario"]["covers"]
    assert labels["subSuite"] == ", ".join(sorted({f["kind"] for f in run["faults"]})) or "no faults"
