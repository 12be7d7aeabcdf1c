"""--shard K/N slices and the terminal's progress line, without running a scenario."""

from __future__ import annotations

import io
from itertools import count
from typing import Any

import pytest

from durable_harness.harness._progress import Progress
from durable_harness.harness._shard import Shard, ShardError, parse_shard, select


@pytest.mark.parametrize("text", ["3/2", "a/b", "0/2", "1/0", "2", "1/2/3", "-1/2", "", " / "])
def test_a_bad_shard_spec_is_one_line_naming_it(text: str) -> None:
    with pytest.raises(ShardError) as caught:
        parse_shard(text)
    message = str(caught.value)
    assert "\n" not in message and repr(text) in message and "--shard" in message


def test_shards_cover_every_item_once_and_differ_by_at_most_one() -> None:
    items = [f"s{n}" for n in range(25)]
    shards = [select(items, lambda s: s, parse_shard(f"{k}/4")) for k in range(1, 5)]
    assert sorted(s for shard in shards for s in shard) == sorted(items)
    assert {len(shard) for shard in shards} == {6, 7}


def test_a_slice_depends_on_the_items_not_their_order() -> None:
    items = [("b", 2), ("a", 1), ("c", 3), ("d", 4)]
    first = select(items, lambda x: x, Shard(1, 2))
    again = select(list(reversed(items)), lambda x: x, Shard(1, 2))
    assert sorted(first) == sorted(again) == [("a", 1), ("c", 3)]
    assert first == [("a", 1), ("c", 3)]  # in the order given


def test_more_shards_than_items_is_refused_rather_than_an_empty_green_shard() -> None:
    with pytest.raises(ShardError, match="only 3 scenarios to share among 4 shards"):
        select(["a", "b", "c"], str, Shard(4, 4))


def run(verdict: str, sid: str, error: bool = False) -> dict[str, Any]:
    return {"verdict": verdict, "error": {"kind": "harness", "message": "boom"} if error else None,
            "scenario": {"id": sid}, "checkers": [], "history": {"digest": "ab" * 32}, "faults": [],
            "candidate_errors": [], "reproduce": f"durable-harness run --scenario {sid}.yaml"}


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_not_on_a_terminal_each_scenario_is_one_plain_line_then_its_details() -> None:
    out = io.StringIO()
    progress = Progress(3, stream=out)
    for doc in (run("pass", "a"), run("fail", "b"), run("unknown", "c", error=True)):
        progress.start(doc["scenario"]["id"])
        progress.done(doc)
    progress.close()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("[1/3] PASS     a ")
    assert lines[1].startswith("[2/3] FAIL     b ") and lines[2] == "         reproduce: durable-harness run --scenario b.yaml"
    assert lines[3].startswith("[3/3] ERROR    c ")
    assert "\r" not in out.getvalue() and "\x1b" not in out.getvalue()


def test_on_a_terminal_one_status_line_is_redrawn_with_counts_and_elapsed_time() -> None:
    out = FakeTTY()
    ticks = count(0, 35)  # each clock reading is 35 s later
    progress = Progress(2, stream=out, clock=lambda: float(next(ticks)), quiet_passes=True)
    progress.start("a")
    progress.done(run("pass", "a"))
    progress.start("b")
    progress.done(run("fail", "b"))
    progress.close()
    text = out.getvalue()
    assert "\r\x1b[2K[0/2] 0:35 | 0 passed | 0 failed | 0 unknown | 0 errors | running a" in text
    assert "[1/2] 1:45 | 1 passed | 0 failed | 0 unknown | 0 errors | running b" in text
    assert "PASS     a" not in text  # a sweep's passing points only count
    assert "[2/2] FAIL     b" in text and text.endswith("\r\x1b[2K")


@pytest.mark.parametrize("shards", [1, 2, 3, 5, 7])
def test_a_forked_sweep_picks_its_shard_of_points_as_the_slice_does(shards: int) -> None:
    """A forked sweep decides at each fork whether the point is in ``--shard``'s slice, before the
    points are all known: the same points as slicing the whole list."""
    from durable_harness.harness._sweep import POINTS, SweepPoint
    from durable_harness.harness.cli import _in_slice

    points = [SweepPoint(k, side, "GET x") for k in range(1, 42) for side in POINTS]
    for index in range(1, shards + 1):
        shard = Shard(index, shards)
        assert [p for p in points if _in_slice(p, None, shard)] == select(points, lambda p: (p.k, p.point), shard)
    assert [p.label for p in points if _in_slice(p, points[7], None)] == [points[7].label]
