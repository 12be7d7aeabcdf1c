"""render_summary, the section of each run that did not pass: the error in words, the candidate's
exceptions, checkers with witnesses (or what they were judged from), unfired faults, determinism,
the sweep, and the reproduce command."""

from __future__ import annotations

from typing import Any

import pytest
from _run_docs import (
    FIRST_LINE, SECOND_LINE, build_run, claims_null, errored, failing, nondeterministic, raised, swept, unknown,
)

from durable_harness.reports import render_summary

Doc = dict[str, Any]


def _section(run: Doc) -> str:
    """The section of the one run rendered: from its heading to the end of the page."""
    text = render_summary([run])
    heading = next(line for line in text.splitlines() if line.startswith("### ") and f" `{run['scenario']['id']}`: " in line)
    return text[text.index(heading):]


def test_failing_run_shows_verdicts_outcome_because_witnesses_and_reproduce() -> None:
    section = _section(failing(build_run("lost_write")))
    assert section.startswith("### ❌ `lost_write`: fail, candidate `reference`, seed 7\n")
    assert "Safety fail, liveness pass; exit code 1: a safety violation." in section
    assert "Outcome: expected `completed`, truth `completed`, claimed `completed`." in section
    assert "#### ❌ `duplicate_drafts` (safety): fail, count 1" in section
    assert "Because: 2 drafts for (job 1, v1, article); expected 1" in section
    assert "| witness | time (s) | process | type | summary |" in section
    assert "| `history.jsonl #12` | 3.250 | worker-1 | info | POST /wp/v2/posts lost |" in section
    assert "| `history.jsonl #19` | 4.500 | worker-1 | ok | POST /wp/v2/posts -&gt; 201 id=8 |" in section
    assert section.endswith("Reproduce:\n\n```sh\ndurable-harness run --candidate reference "
                            "--scenario durable_harness/scenarios/lost_write.yaml --seed 7\n```\n")
    assert "duplicate_media" not in section  # passing checkers are not repeated


def test_an_outcome_expected_from_the_world_says_so() -> None:
    run = failing(build_run("x"))
    run["outcome"].update(expected="from_world", truth="needs_human", claimed="completed")
    assert ("Outcome: expected whatever the world shows (`from_world`), truth `needs_human`, claimed `completed`."
            in _section(run))


def test_a_sweep_witness_names_the_point_history_it_points_into() -> None:
    section = _section(swept(build_run("baseline")))
    assert "| `points/baseline-crash-17-after/history.jsonl #12` | 3.250 |" in section
    assert "**Crash-point sweep**: 34 points, 32 passed; failing: `17:after`, `18:before`." in section


def test_a_sweep_with_no_failing_point_says_none() -> None:
    run = swept(build_run("baseline"))
    run["sweep"]["failing"] = []
    assert "failing: none." in _section(run)


ERRORS = [
    ("harness", "**Error (harness)**: an error of the harness, not of the candidate."),
    ("candidate", "**Error (candidate)**: the candidate could not be run at all."),
    ("setup", "**Error (setup)**: the scenario cannot run against this candidate."),
    ("interrupted", "**Error (interrupted)**: the run was interrupted (SIGINT or SIGTERM) before it could be judged."),
]


@pytest.mark.parametrize(("kind", "words"), ERRORS, ids=[e[0] for e in ERRORS])
def test_each_error_kind_is_said_in_words(kind: str, words: str) -> None:
    section = _section(errored(build_run("bad"), kind))
    assert section.startswith(f"### ⚠️ `bad`: error ({kind}), candidate `reference`, seed 7\n")
    assert f"\n{words}\n\n```text\n" in section
    assert "exit code 3: the run could not be judged" in section
    assert "did not fire" not in section  # a run that could not be judged says why in its error


def test_an_error_shows_its_message_and_detail_in_full() -> None:
    section = _section(errored(build_run("bad"), "candidate", detail="Traceback (most recent call last):\n  x"))
    assert ("```text\ncandidate 'pkg.mod:factory' would not start:\nImportError: no module named 'pkg'\n```\n\n"
            "Detail:\n\n```text\nTraceback (most recent call last):\n  x\n```") in section


def test_the_candidates_exceptions_show_type_message_and_its_frames() -> None:
    section = _section(raised(build_run("raiser")))
    assert "The candidate's own code raised 2 exceptions from control-API calls" in section
    assert ("`step` raised `KeyError` at `history.jsonl #84`, t=7.500 s:\n\n```text\n"
            "Traceback (the candidate's own frames, most recent call last):\n"
            "  durable_harness/candidates/reference/_loop.py:40 in step\n  durable_harness/candidates/reference/_ledger.py:12 in load\n"
            "KeyError: 'job-1'\n```") in section
    assert "`report` raised `ValueError` at no history entry, t=9.000 s:" in section
    assert section.index("raised `KeyError`") < section.index("#### ❌ `duplicate_drafts`")


def test_no_candidate_exceptions_no_paragraph() -> None:
    assert "control-API calls" not in _section(failing(build_run("x")))


def test_a_checker_without_witnesses_says_it_was_judged_from_truth_and_claims() -> None:
    section = _section(unknown(build_run("drop")))
    assert "No witnesses recorded" not in section
    assert ("No history entry witnesses this verdict: it was judged from the run's final state, the world's final "
            "ground truth (`truth` in run.json) and the candidate's final report (`claims` in run.json).") in section


def test_a_checker_without_witnesses_and_no_final_report_says_so() -> None:
    section = _section(claims_null(build_run("silent")))
    assert "Outcome: expected `completed`, truth `completed`, claimed *none*." in section
    assert ("judged from the run's final state, the world's final ground truth (`truth` in run.json); the candidate "
            "gave no final report (`claims` is null in run.json).") in section


def test_unfired_faults_are_listed_with_their_channel() -> None:
    section = _section(unknown(build_run("drop")))
    assert ("- `lose_response` (faults[0]) at `nth POST /wp/v2/posts = 1` (after_commit) on "
            "`POST wordpress /wp/v2/posts`: scheduled 1, fired 0, 3 matching requests seen") in section


def test_a_determinism_failure_shows_both_entries_in_full_and_the_differing_paths() -> None:
    long_line = FIRST_LINE[:-1] + ',"pad":"' + "x" * 400 + '"}'
    run = nondeterministic(build_run("nondet"))
    run["determinism"]["first"] = long_line
    section = _section(run)
    assert ("**Determinism**: the same seed gave two different histories (`abababababab` and `cdcdcdcdcdcd`). "
            "The first difference is entry 17; differing paths: `data.body.id`.") in section
    assert f"First run, entry 17:\n\n```json\n{long_line}\n```" in section  # not truncated
    assert f"Second run, entry 17:\n\n```json\n{SECOND_LINE}\n```" in section
    assert "Every checker passed, yet safety is pass and liveness is unknown; what follows explains why." in section


def test_a_history_that_ended_early_says_so() -> None:
    run = nondeterministic(build_run("nondet"))
    run["determinism"].update(second=None)
    assert "Second run: no entry 17 (its history ended before it)." in _section(run)
    run["determinism"].update(entry=None, first=None, differs=[])
    assert "No differing entry was recorded." in _section(run)


def test_a_same_history_is_not_shown() -> None:
    run = failing(build_run("x"))
    run["determinism"] = {"same": True, "digests": ["ab" * 32] * 2, "entry": None, "first": None, "second": None,
                          "differs": []}
    assert "Determinism" not in _section(run)


def test_a_run_with_no_checkers_says_nothing_was_proven() -> None:
    run = build_run("empty")
    run.update(checkers=[], counters={}, safety="unknown", verdict="unknown", exit_code=2)
    assert "No checker ran, so nothing was proven" in _section(run)


def test_backticks_in_the_reproduce_command_get_a_longer_fence() -> None:
    run = failing(build_run("lost_write"))
    run["reproduce"] = "echo ```"
    assert "````sh\necho ```\n````" in _section(run)


def test_backticks_in_a_json_line_get_a_longer_fence() -> None:
    run = nondeterministic(build_run("nondet"))
    run["determinism"]["first"] = '{"s":"````"}'
    assert '`````json\n{"s":"````"}\n`````' in _section(run)
