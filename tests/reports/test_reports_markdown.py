"""render_summary, the page: partial banner, header, verdict matrix with faults, not run, coverage;
stable bytes; text from documents cannot break the page."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from _run_docs import STREAM, build_index, build_run, claims_null, errored, failing, not_exercised, unknown

from durable_harness.reports import render_summary

Doc = dict[str, Any]


def _line(text: str, prefix: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(prefix))


def _coverage(text: str) -> str:
    return text.split("### Coverage\n", 1)[1].split("\n### ", 1)[0]


def test_header_says_verdict_exit_code_and_who(runs: list[Doc]) -> None:
    lines = render_summary(runs).splitlines()
    assert lines[0] == "## ❌ durable-harness: fail, exit code 1 — a safety violation"
    assert lines[2:8] == [
        "- Scenarios: 4 — 1 pass, 1 fail, 1 unknown, 1 error",
        "- Candidate: `reference`, digest `1a2b3c4d5e6f`",
        "- Harness: 0.2.0, commit `4f5e6d7c8b9a`",
        "- Started: date unknown (no report.json)",
        "- Seeds: 7",
        "",
    ]


def test_header_takes_date_and_command_from_the_index(runs: list[Doc]) -> None:
    index = build_index(["baseline_article", "lost_write", "stream_drop", "bad_candidate"])
    text = render_summary(runs, index)
    assert "- Started: 2026-11-30T09:46:21Z, finished 2026-11-30T09:50:03Z" in text
    assert "- Command: `durable-harness run --candidate reference --report harness-report`" in text
    assert "- Scenarios: 4 planned, 4 ran — 1 pass, 1 fail, 1 unknown, 1 error" in text
    assert "PARTIAL" not in text


@pytest.mark.parametrize(("runs_", "head"), [
    ([build_run("a")], "## ✅ durable-harness: pass, exit code 0 — every scenario passed"),
    ([build_run("a"), claims_null(build_run("b"))],
     "## ❌ durable-harness: fail, exit code 2 — a liveness failure or an unknown verdict"),
    ([build_run("a"), unknown(build_run("b"))],
     "## ❔ durable-harness: unknown, exit code 2 — a liveness failure or an unknown verdict"),
    ([build_run("a"), errored(build_run("b"), "harness"), unknown(build_run("c"))],
     "## ⚠️ durable-harness: unknown, exit code 3 — the run could not be judged"),
    ([errored(build_run("b"), "setup"), failing(build_run("c"))], "## ❌ durable-harness: fail, exit code 1"),
], ids=["pass", "liveness", "unknown", "error-beats-unknown", "safety-beats-error"])
def test_overall_exit_code_follows_harness_verdict(runs_: list[Doc], head: str) -> None:
    assert render_summary(runs_).startswith(head)


def test_no_digest_and_no_commit_say_so() -> None:
    text = render_summary([build_run("a", digest=None, commit=None)])
    assert "- Candidate: `reference`, no digest" in text
    assert "- Harness: 0.2.0, not a git checkout" in text


def test_several_candidates_are_all_named() -> None:
    text = render_summary([build_run("a"), build_run("a", candidate="mutant:x", digest=None, seed=8)])
    assert "- Candidates: `mutant:x`, no digest; `reference`, digest `1a2b3c4d5e6f`" in text
    assert "- Seeds: 7, 8" in text
    assert "- Scenarios: 1 (2 runs) — 2 pass, 0 fail, 0 unknown, 0 error" in text


def test_a_partial_report_opens_with_a_banner_and_lists_what_did_not_run() -> None:
    index = build_index(["a", "b", "c", "d"], completed=2, interrupted_by="SIGINT")
    text = render_summary([build_run("a"), build_run("b")], index)
    lines = text.splitlines()
    assert lines[0] == "> **PARTIAL REPORT: 2 of 4 scenarios ran; interrupted by SIGINT; not run: `c`, `d`**"
    assert lines[2] == "## ⚠️ durable-harness: unknown, exit code 3 — " + lines[2].split(" — ", 1)[1]
    assert "- Started: 2026-11-30T09:46:21Z, not finished" in lines
    assert "- Scenarios: 4 planned, 2 ran — 2 pass, 0 fail, 0 unknown, 0 error; 2 not run" in lines
    section = text.split("### ⏹️ Not run\n", 1)[1]
    assert "2 planned scenarios have no run.json, so nothing is known about them: `c`, `d`." in section


def test_a_complete_report_missing_a_run_json_lists_it_as_not_run() -> None:
    text = render_summary([build_run("a")], build_index(["a", "b"]))
    assert not text.startswith(">")
    assert "1 planned scenario has no run.json, so nothing is known about it: `b`." in text
    assert text.startswith("## ⚠️ durable-harness: unknown, exit code 3")


def test_nothing_run_is_not_a_green_page() -> None:
    assert render_summary([]).startswith("## ⚠️ durable-harness: unknown, exit code 3")
    assert "Nothing was run, so nothing passed." in render_summary([])
    assert "- Candidate: none recorded" in render_summary([])
    text = render_summary([], build_index(["a"], completed=0, interrupted_by="SIGTERM"))
    assert text.startswith("> **PARTIAL REPORT: 0 of 1 scenarios ran; interrupted by SIGTERM; not run: `a`**")


def test_matrix_has_one_row_per_run_in_report_order_with_its_faults(runs: list[Doc]) -> None:
    lines = render_summary(runs).splitlines()
    header = lines.index("| scenario | verdict | duplicate_drafts | duplicate_media | leftover_unknowns | faults | coverage |")
    assert lines[header + 1] == "| --- | --- | ---: | ---: | ---: | --- | ---: |"
    assert lines[header + 2:header + 6] == [
        "| bad_candidate | ⚠️ error (candidate) | – | – | – | lose_response: not exercised | 0/1 (0%) |",
        "| baseline_article | ✅ pass | 0 | 0 | 0 | lose_response ×1 | 1/1 |",
        "| lost_write | ❌ fail | 1 ❌ | 0 | 0 | lose_response ×1 | 1/1 |",
        "| stream_drop | ❔ unknown | 0 | 0 | 0 | lose_response: unfired (0 of 1) | 0/1 (0%) |",
    ]


def test_faults_column_names_fired_and_not_exercised_faults() -> None:
    run = not_exercised(build_run("poll"))
    run["faults"][0]["fired"] = 3
    assert _line(render_summary([run]), "| poll ").endswith("| lose_response ×3, drop_stream: not exercised | 1/2 (50%) |")
    run["faults"] = []
    run.pop("coverage", None)
    assert _line(render_summary([run]), "| poll ").endswith("| 0 | 0 | 0 | – | – |")


def test_several_candidates_get_a_candidate_column() -> None:
    text = render_summary([build_run("a"), failing(build_run("a", candidate="mutant:x"))])
    assert "| a | mutant:x | ❌ fail | 1 ❌ | 0 | 0 | lose_response ×1 |" in text


def test_a_count_within_its_bound_reads_plain_and_a_failing_one_is_marked() -> None:
    run = build_run("bounded")
    run["counters"]["duplicate_media"] = 1  # its checker passed: e.g. a redone step within the scenario's bound
    run["checkers"][1].update(count=1)
    assert _line(render_summary([run]), "| bounded").startswith("| bounded | ✅ pass | 0 | 1 | 0 |")
    assert _line(render_summary([failing(run)]), "| bounded").startswith("| bounded | ❌ fail | 1 ❌ | 1 | 0 |")


def test_coverage_lists_not_exercised_faults_of_passing_runs_with_their_channel() -> None:
    text = render_summary([not_exercised(build_run("poll")), failing(build_run("lost_write"))])
    coverage = _coverage(text)
    assert "This is not a failure (the liveness checkers say whether the job still got done)" in coverage
    assert "**2/3 (67%)** of the scheduled faults and actions took effect." in coverage
    assert (f"| poll | drop_stream (faults[1] at `nth GET /events = 1`): not exercised | the candidate never used "
            f"{STREAM} |") in coverage
    assert "lost_write" not in coverage
    assert "### ❌ `lost_write`" in text and "`poll`:" not in text  # the passing run gets no section


def test_coverage_says_so_when_every_fault_was_exercised_or_none_was_scheduled() -> None:
    assert _coverage(render_summary([build_run("a")])).strip() == ("**1/1** of the scheduled faults and actions took "
                                                                  "effect.\n\nEvery fault met the request it waits for.")
    run = build_run("a")
    run["faults"] = []
    assert _coverage(render_summary([run])).strip() == "No scenario scheduled a fault."


def test_coverage_marks_a_run_that_could_not_be_judged() -> None:
    coverage = _coverage(render_summary([errored(build_run("bad"), "candidate")]))
    assert "| bad — ⚠️ error (candidate) | lose_response (faults[0]" in coverage


def test_passing_runs_have_no_section(runs: list[Doc]) -> None:
    text = render_summary(runs)
    assert "### ✅" not in text
    assert text.count("\nReproduce:\n") == 3


def test_equal_input_gives_identical_bytes_whatever_the_order(runs: list[Doc]) -> None:
    index = build_index(["baseline_article", "lost_write", "stream_drop", "bad_candidate", "x"], completed=4,
                        interrupted_by="SIGINT")
    expected = render_summary(runs, index).encode("utf-8")
    shuffled = copy.deepcopy(runs)
    random.Random(3).shuffle(shuffled)
    assert render_summary(shuffled, index).encode("utf-8") == expected
    assert render_summary(runs, index).encode("utf-8") == expected
    assert expected.endswith(b"\n") and not expected.endswith(b"\n\n")


def test_pipes_and_markup_in_cells_are_escaped() -> None:
    run = failing(build_run("a|b"))
    run["checkers"][0]["witnesses"][0]["summary"] = "GET /a|b <script>\nnext line"
    run["faults"][0]["kind"] = "lose|response"
    lines = render_summary([run, build_run("plain")]).splitlines()
    assert _line("\n".join(lines), "| a\\|b |") == "| a\\|b | ❌ fail | 1 ❌ | 0 | 0 | lose\\|response ×1 | 1/1 |"
    assert "| `history.jsonl #12` | 3.250 | worker-1 | info | GET /a\\|b &lt;script&gt; next line |" in lines


def test_a_lone_surrogate_cannot_make_the_page_unwritable() -> None:
    run = failing(build_run("s\udcff"))
    run["error"] = None
    run["checkers"][0]["because"] = "bad byte \ud800"
    text = render_summary([run])
    text.encode("utf-8")
    assert "bad byte \\ud800" in text


def test_invalid_run_is_refused_with_its_position() -> None:
    bad = build_run("x")
    bad["verdict"] = "green"
    with pytest.raises(ValueError, match=r"runs\[1\]: 1 problem:\n  \$\.verdict: 'green'"):
        render_summary([build_run("ok"), bad])


def test_invalid_index_is_refused() -> None:
    index = build_index(["a"])
    index["partial"] = "no"
    with pytest.raises(ValueError, match=r"^index: 1 problem:\n  \$\.partial: 'no' is not of type 'boolean'"):
        render_summary([build_run("a")], index)
