"""render_summary: headline, verdict matrix, details for every run that did not pass; stable bytes."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from _run_docs import build_run, failing

from reports import render_summary

Doc = dict[str, Any]


def _section(text: str, scenario_id: str) -> str:
    """The details section of one run: from its heading to the next run heading."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("### ") and f" `{scenario_id}`: " in line)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("### ")), len(lines))
    return "\n".join(lines[start:end])


def test_headline_counts_verdicts_and_names_candidates(runs: list[Doc]) -> None:
    first = render_summary(runs).splitlines()[0:3]
    assert first[0] == "## ❌ durable-harness: 4 scenarios — 1 pass, 1 fail, 2 unknown"
    assert first[2] == ("Candidates: `mutant:blind-retry`, `pkg.mod:factory`, `reference`. "
                        "1 could not run (exit code 3).")


def test_matrix_has_one_row_per_run_in_report_order(runs: list[Doc]) -> None:
    lines = render_summary(runs).splitlines()
    header = lines.index("| scenario | candidate | verdict | duplicate_drafts | duplicate_media | leftover_unknowns |")
    assert lines[header + 1] == "| --- | --- | --- | ---: | ---: | ---: |"
    assert lines[header + 2:header + 6] == [
        "| bad_candidate | pkg.mod:factory | ⚠️ error | – | – | – |",
        "| baseline_article | reference | ✅ pass | 0 | 0 | 0 |",
        "| lost_write | mutant:blind-retry | ❌ fail | 1 ❌ | 0 | 0 |",
        "| stream_drop | reference | ❔ unknown | 0 | 0 | 0 |",
    ]


def test_single_candidate_has_no_candidate_column() -> None:
    text = render_summary([failing(build_run("lost_write"))])
    assert "| scenario | verdict | duplicate_drafts | duplicate_media | leftover_unknowns |" in text
    assert "| lost_write | ❌ fail | 1 ❌ | 0 | 0 |" in text
    assert text.splitlines()[0] == "## ❌ durable-harness: 1 scenario — 0 pass, 1 fail, 0 unknown"


def test_failing_run_shows_because_witnesses_and_reproduce(runs: list[Doc]) -> None:
    section = _section(render_summary(runs), "lost_write")
    assert "#### ❌ `duplicate_drafts` (safety): fail, count 1" in section
    assert "Because: 2 drafts for (job 1, v1, article); expected 1" in section
    assert "| 12 | 3.250 | worker-1 | info | POST /wp/v2/posts lost |" in section
    assert "| 19 | 4.500 | worker-1 | ok | POST /wp/v2/posts -&gt; 201 id=8 |" in section
    reproduce = ("```sh\ndurable-harness run --candidate mutant:blind-retry --scenario scenarios/lost_write.yaml"
                 " --seed 7\n```")
    assert reproduce in section
    assert "duplicate_media" not in section  # passing checkers are not repeated


def test_passing_run_has_no_section(runs: list[Doc]) -> None:
    text = render_summary(runs)
    assert "`baseline_article`" not in text
    assert text.count("\nReproduce:\n") == 3


def test_unknown_run_explains_the_fault_that_did_not_fire(runs: list[Doc]) -> None:
    section = _section(render_summary(runs), "stream_drop")
    assert "No checker failed or was unknown" in section
    assert "- `lose_response` at `nth POST /wp/v2/posts = 1` (after_commit): scheduled 1, fired 0" in section


def test_harness_error_is_shown_in_a_code_block(runs: list[Doc]) -> None:
    section = _section(render_summary(runs), "bad_candidate")
    assert "### ⚠️ `bad_candidate`: error" in section
    assert "```text\ncandidate 'pkg.mod:factory' would not start:\nImportError: no module named 'pkg'\n```" in section


def test_equal_input_gives_identical_bytes_whatever_the_order(runs: list[Doc]) -> None:
    expected = render_summary(runs).encode("utf-8")
    shuffled = copy.deepcopy(runs)
    random.Random(3).shuffle(shuffled)
    assert render_summary(shuffled).encode("utf-8") == expected
    assert render_summary(runs).encode("utf-8") == expected
    assert expected.endswith(b"\n") and not expected.endswith(b"\n\n")


def test_pipes_and_markup_in_cells_are_escaped() -> None:
    run = failing(build_run("a|b", candidate="x|y"))
    run["checkers"][0]["witnesses"][0]["summary"] = "GET /a|b <script>\nnext line"
    lines = render_summary([run, build_run("plain")]).splitlines()
    row = next(line for line in lines if line.startswith("| a\\|b |"))
    assert row == "| a\\|b | x\\|y | ❌ fail | 1 ❌ | 0 | 0 |"
    assert "| 12 | 3.250 | worker-1 | info | GET /a\\|b &lt;script&gt; next line |" in lines


def test_backticks_in_the_reproduce_command_get_a_longer_fence() -> None:
    run = failing(build_run("lost_write"))
    run["reproduce"] = "echo ```"
    text = render_summary([run])
    assert "````sh\necho ```\n````" in text


def test_no_runs_is_not_a_green_page() -> None:
    assert render_summary([]) == "## durable-harness: no runs\n\nNothing was run, so nothing passed.\n"


def test_invalid_run_is_refused_with_its_position() -> None:
    bad = build_run("x")
    bad["verdict"] = "green"
    with pytest.raises(ValueError, match=r"runs\[1\]: 1 problem:\n  \$\.verdict: 'green'"):
        render_summary([build_run("ok"), bad])


def test_harness_error_does_not_list_faults_it_never_reached(runs: list[Doc]) -> None:
    assert "did not fire" not in _section(render_summary(runs), "bad_candidate")


def test_a_count_within_its_bound_reads_plain_and_a_failing_one_is_marked() -> None:
    run = build_run("bounded")
    run["counters"]["duplicate_media"] = 1  # its checker passed: e.g. a redone step within the scenario's bound
    run["checkers"][1].update(count=1)
    row = next(line for line in render_summary([run]).splitlines() if line.startswith("| bounded"))
    assert row == "| bounded | ✅ pass | 0 | 1 | 0 |"
    row = next(line for line in render_summary([failing(run)]).splitlines() if line.startswith("| bounded"))
    assert row == "| bounded | ❌ fail | 1 ❌ | 1 | 0 |"
