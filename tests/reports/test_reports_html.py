"""render_html: one self-contained page from the documents and the histories beside them."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from _histories import synthetic_history, write_folder
from _run_docs import build_index, build_run, errored, failing, swept, unknown
from durable_harness.reports import ReportFiles, render_html

Doc = dict[str, Any]


class _Page(HTMLParser):
    """Collects what the tests look at: attributes that load something, element ids, the scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.loads: list[str] = []
        self.ids: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.ids += [found["id"] or ""] if "id" in found else []
        for name in ("src", "href", "action", "srcset", "poster"):
            value = found.get(name)
            if value is not None and not value.startswith("#") and value != "data:,":
                self.loads.append(f"{tag} {name}={value}")
        if tag == "link" and found.get("rel") == "stylesheet":
            self.loads.append("a stylesheet link")
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


def parse(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    return page


def test_the_page_loads_nothing_from_anywhere(runs: list[Doc]) -> None:
    text = render_html(runs, build_index([r["scenario"]["id"] for r in runs]))
    page = parse(text)
    assert page.loads == []
    assert "default-src 'none'" in text  # the Content-Security-Policy forbids any load the page might try
    assert not re.search(r"url\(|@import|https?://", text.split("<script", 1)[0].split("<style>", 1)[1].split("</style>")[0])
    assert len(page.ids) == len(set(page.ids)), "element ids repeat"


def test_equal_input_gives_equal_bytes_whatever_the_order(runs: list[Doc]) -> None:
    assert render_html(runs) == render_html(list(reversed(runs)))


def test_the_header_says_verdict_exit_code_candidate_harness_date_seeds(runs: list[Doc]) -> None:
    text = render_html(runs, build_index([r["scenario"]["id"] for r in runs]))
    assert "durable-harness: fail, exit code 1 — a safety violation" in text
    assert "<code>reference</code> digest <code>1a2b3c4d5e6f</code>" in text
    assert "0.2.0 commit <code>4f5e6d7c8b9a</code>" in text
    assert "2026-11-30T09:46:21Z to 2026-11-30T09:50:03Z" in text
    assert "4 planned, 4 ran — 1 pass, 1 fail, 1 unknown, 1 error" in text


def test_findings_come_first_with_because_witnesses_and_a_copyable_reproduce_command(runs: list[Doc]) -> None:
    text = render_html(runs)
    findings = text[text.index('id="findings"'):text.index('id="matrix"')]
    order = [m.group(1) for m in re.finditer(r'class="finding v-\w+" data-counter="([^"]+)"', findings)]
    assert order == ["duplicate_drafts", "error: candidate", "faults_fired"]  # safety, then errors, then unknowns
    assert "2 drafts for (job 1, v1, article); expected 1" in findings
    assert "history.jsonl #12" in findings and "history.jsonl #19" in findings
    command = "durable-harness run --candidate reference --scenario durable_harness/scenarios/lost_write.yaml --seed 7"
    assert f'<button type="button" class="copy" data-copy="{command}">copy</button>' in findings


def test_the_matrix_keeps_safety_and_liveness_apart_and_shows_faults() -> None:
    run = failing(build_run("a"))
    run["counters"].update(stuck_jobs=0, custom_counter=2)  # no checker names custom_counter: its class is unknown
    text = render_html([run])
    matrix = text[text.index('id="matrix"'):text.index('id="coverage"')]
    groups = re.findall(r'<th colspan="(\d)" class="grp grp-(\w+)">', matrix)
    assert groups == [("2", "safety"), ("1", "liveness"), ("2", "other")]  # leftover_unknowns has no checker here
    heads = re.findall(r'<th class="counter grp-\w+" title="([^"]+)">', matrix)
    # in the registry's order, which each checker's rank carries; counters no checker of the runs ranks come after, by name
    assert heads == ["duplicate_drafts", "duplicate_media", "stuck_jobs", "custom_counter", "leftover_unknowns"]
    assert 'class="num v-fail" title="duplicate_drafts: fail">1<' in matrix
    assert "lose_response ×1" in matrix and "Title of a" in matrix


def test_text_from_documents_is_escaped_and_cannot_end_the_data_script(tmp_path: Path) -> None:
    run = failing(build_run("x"))
    run["scenario"]["title"] = "<img src=x onerror=alert(1)>"
    run["checkers"][0]["because"] = "</script><script>alert(2)</script>"
    history = synthetic_history(20)
    history[3]["data"]["route"] = "/wp/v2/posts</script><script>alert(3)</script>"
    write_folder(tmp_path, [run], None, {"x": history})
    text = render_html([run], None, ReportFiles(tmp_path))
    assert "<img src=x" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    assert text.count("<script") == 2  # the data and the code, nothing injected
    data = json.loads(parse(text).scripts[0])
    assert "/wp/v2/posts</script><script>alert(3)</script>" in data["tl-0-0"]["s"][3]


def test_a_timeline_per_run_with_lanes_for_every_process_and_witnesses_linked(tmp_path: Path) -> None:
    run = failing(build_run("x"))
    history = synthetic_history(40)
    write_folder(tmp_path, [run], None, {"x": history})
    text = render_html([run], None, ReportFiles(tmp_path))
    timelines = json.loads(parse(text).scripts[0])
    assert list(timelines) == ["tl-0-0"]
    assert timelines["tl-0-0"]["lanes"] == list(dict.fromkeys(e["process"] for e in history))
    assert timelines["tl-0-0"]["w"] == [12, 19]
    assert '<a class="wlink" href="#tl-0-0" data-tl="tl-0-0" data-entry="12">history.jsonl #12</a>' in text
    assert "Timeline: history <code>history.jsonl</code>, 40 entries" in text


def test_a_missing_history_is_said_and_nothing_outside_the_run_folder_is_read(tmp_path: Path) -> None:
    run = swept(build_run("s"))
    run["checkers"][0]["witnesses"][0]["file"] = "../../../etc/passwd"
    write_folder(tmp_path, [run])
    text = render_html([run], None, ReportFiles(tmp_path))
    assert text.count("not found beside run.json") == 3  # its own history, the point's, and the escapee
    assert "root:" not in text
    assert json.loads(parse(text).scripts[0]) == {}
    assert "<code>../../../etc/passwd #12</code>" in text  # named, not linked


def test_a_sweep_shows_the_failing_point_timeline_and_side_effects(tmp_path: Path) -> None:
    run = swept(build_run("s"))
    point = tmp_path / "s" / "points" / "baseline-crash-17-after"
    write_folder(tmp_path, [run], None, {"s": synthetic_history(10)})
    point.mkdir(parents=True)
    (point / "history.jsonl").write_text("".join(json.dumps(e) + "\n" for e in synthetic_history(30)))
    truth = {"wordpress": {"posts": [
        {"id": 4, "created_at": 6.0, "created_by": "editor#1", "status": "draft", "meta": {"operation_key": "k/draft"}},
        {"id": 5, "created_at": 7.0, "created_by": "editor#1", "status": "draft", "meta": {"operation_key": "k/draft"}},
    ]}}
    (point / "run.json").write_text(json.dumps({"truth": truth}))
    text = render_html([run], None, ReportFiles(tmp_path))
    assert "Timeline: the clean run&#39;s history" in text
    assert "Timeline: the history of crash point baseline-crash-17-after" in text
    assert "(ground truth of crash point baseline-crash-17-after)" in text
    assert "operation key k/draft — 2 objects for one role" in text and "posts 5 <span class=\"bad\">duplicate" in text


@pytest.mark.parametrize("kind", ["harness", "candidate", "setup", "interrupted"])
def test_a_run_that_could_not_be_judged_says_why(kind: str) -> None:
    text = render_html([errored(build_run("e"), kind)])
    assert f"<strong>Error ({kind})</strong>" in text and "exit code 3" in text


def test_an_unknown_run_is_a_finding_and_its_section_is_open() -> None:
    text = render_html([unknown(build_run("u"))])
    assert 'data-counter="faults_fired"' in text
    assert re.search(r'<details class="scenario st-unknown" id="s-0" [^>]*open>', text)
    assert "lose_response: unfired (0 of 1)" in text


def test_no_runs_at_all_is_said_plainly() -> None:
    text = render_html([], build_index(["a"], completed=0, interrupted_by="SIGINT"))
    assert "PARTIAL REPORT: 0 of 1 scenarios ran; interrupted by SIGINT; not run: a" in text
    assert "Nothing was run, so nothing passed." in text


def test_passing_runs_timelines_are_left_out_beyond_a_budget_failing_ones_never(tmp_path: Path) -> None:
    from durable_harness.reports._html_model import PASSING_ENTRIES

    size = PASSING_ENTRIES // 2 + 1  # two passing histories fit, the third does not
    runs = [build_run("p1"), build_run("p2"), build_run("p3"), failing(build_run("z"))]
    write_folder(tmp_path, runs, None, {r["scenario"]["id"]: synthetic_history(size) for r in runs})
    text = render_html(runs, None, ReportFiles(tmp_path))
    assert sorted(json.loads(parse(text).scripts[0])) == ["tl-0-0", "tl-3-0"]
    assert text.count("Left out to keep the report small") == 2
    assert "its history is <code>p2/history.jsonl</code>" in text


def test_a_process_run_says_which_clock_it_was_on() -> None:
    on_harness, on_real, in_process = build_run("a"), build_run("b"), build_run("c")
    on_harness["timings"].update(clock="harness", skipped_s=21.5)
    on_real["timings"].update(clock="real", skipped_s=0.0)
    text = render_html([on_harness, on_real, in_process])
    assert text.count("on the harness&#39;s clock (21.5 idle s skipped)") + text.count("on the harness's clock (21.5 idle s skipped)") == 1
    assert text.count("on compressed real time") == 1
