"""check_unmixed: one candidate under one harness per report; the message names every group found."""

from __future__ import annotations

import re
from typing import Any

import pytest
from _run_docs import CANDIDATE_DIGEST, COMMIT, build_index, build_run, failing

from durable_harness.reports import ReportMixError, check_unmixed

Doc = dict[str, Any]
OTHER_DIGEST = "9" * 64


def _message(runs: list[Doc], index: Doc | None = None) -> str:
    with pytest.raises(ReportMixError) as info:
        check_unmixed(runs, index, source="report directory 'out'")
    message = str(info.value)
    assert "\n" not in message  # one paragraph
    assert "keep one report folder per candidate and harness" in message
    assert "give --report a fresh folder" in message
    return message


def test_one_candidate_under_one_harness_is_fine() -> None:
    runs = [build_run("a"), failing(build_run("b")), build_run("c", seed=8)]
    check_unmixed(runs)
    check_unmixed(runs, build_index(["a", "b", "c", "d"]))
    check_unmixed([], build_index(["a"], completed=0, interrupted_by="SIGINT"))


def test_different_candidates_are_named_with_their_counts() -> None:
    runs = [build_run(s) for s in "abc"] + [build_run("d", candidate="mutant:blind-retry", digest=OTHER_DIGEST)]
    message = _message(runs)
    assert message.startswith("report directory 'out' mixes documents that cannot be read as one report: ")
    assert ("reference@1a2b3c4d5e6f (harness 0.2.0 4f5e6d7c8b9a) x 3 runs; "
            "mutant:blind-retry@999999999999 (harness 0.2.0 4f5e6d7c8b9a) x 1 run.") in message


def test_same_spec_with_a_different_digest_is_a_mix() -> None:
    message = _message([build_run("a"), build_run("b", digest=OTHER_DIGEST), build_run("c", digest=None)])
    assert "reference@1a2b3c4d5e6f" in message
    assert "reference@999999999999" in message
    assert "reference (no digest)" in message


@pytest.mark.parametrize(("change", "label"), [
    ({"version": "0.3.0"}, "(harness 0.3.0 4f5e6d7c8b9a)"),
    ({"commit": "f" * 40}, "(harness 0.2.0 ffffffffffff)"),
    ({"commit": None}, "(harness 0.2.0, no commit)"),
], ids=["version", "commit", "no-commit"])
def test_a_different_harness_is_a_mix(change: dict[str, Any], label: str) -> None:
    other = build_run("b", **change)
    message = _message([build_run("a"), other])
    assert label in message
    assert "(harness 0.2.0 4f5e6d7c8b9a) x 1 run" in message


def test_runs_that_disagree_with_the_index_are_a_mix() -> None:
    index = build_index(["a", "b"], candidate="mutant:blind-retry", digest=OTHER_DIGEST)
    message = _message([build_run("a"), build_run("b")], index)
    assert re.search(r"report.json says mutant:blind-retry@999999999999 \(harness 0.2.0 4f5e6d7c8b9a\); "
                     r"reference@1a2b3c4d5e6f \(harness 0.2.0 4f5e6d7c8b9a\) x 2 runs\.", message)


def test_a_run_the_index_did_not_plan_is_a_mix() -> None:
    message = _message([build_run("a"), build_run("stale")], build_index(["a", "b"]))
    assert "runs of scenarios report.json did not plan: stale." in message


def test_the_index_alone_with_matching_identity_is_fine() -> None:
    index = build_index(["a"], digest=CANDIDATE_DIGEST, commit=COMMIT)
    check_unmixed([build_run("a")], index)
