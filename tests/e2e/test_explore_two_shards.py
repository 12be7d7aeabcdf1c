"""Two shards of one search, run here one after the other as two CI jobs would run side by side, then
merged: they find what one search of the same total budget finds (or better), and a rerun on the
merged folder finds it at once. The budget is a number of plans (``--max-plans``): a time budget
ends wherever the machine's speed puts it, and this must hold on a loaded machine too."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness.cli import main

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # several searches of seconds each


def explore(report: Path, *extra: str, candidate: str = "mutant:blind-retry", plans: int) -> tuple[int, dict[str, Any]]:
    code = main(["explore", "--candidate", candidate, "--seed", "0", "--budget", "10m", "--max-plans", str(plans),
                 "-j", "1", "--report", str(report), *extra])
    return code, json.loads((report / "exploration.json").read_text())


def test_two_shards_merged_find_what_one_search_of_their_budget_finds(tmp_path: Path) -> None:
    code, single = explore(tmp_path / "single", plans=20)
    assert code == 1 and single["finding"] is not None
    shards = [explore(tmp_path / f"shard-{k}", "--shard", f"{k}/2", plans=10) for k in (1, 2)]
    assert [doc["shard"] for _, doc in shards] == [{"index": 1, "count": 2}, {"index": 2, "count": 2}]
    merged_dir = tmp_path / "merged"
    assert main(["explore", "merge", str(tmp_path / "shard-1"), str(tmp_path / "shard-2"),
                 "--report", str(merged_dir)]) == 1
    merged = json.loads((merged_dir / "exploration.json").read_text())
    assert merged["finding"] is not None and merged["exit_code"] == 1
    assert tuple(merged["finding"]["size"]) <= tuple(single["finding"]["size"])
    assert merged["plans"] == sum(doc["plans"] for _, doc in shards)
    assert Path(merged["finding"]["exported"]).exists()

    code, again = explore(merged_dir, plans=20)  # the rerun the merge printed
    assert code == 1 and again["first_finding_plans"] == 1
    assert again["finding"]["plan"] == merged["finding"]["plan"]


def test_the_shards_first_passes_are_the_single_search_s(tmp_path: Path) -> None:
    """Against the reference nothing is found, so each search runs its whole first-pass budget."""
    _code, single = explore(tmp_path / "single", candidate="reference", plans=6)
    shards = [explore(tmp_path / f"s{k}", "--shard", f"{k}/2", candidate="reference", plans=3)[1] for k in (1, 2)]
    assert single["finding"] is None and [s["plans"] for s in shards] == [3, 3]
    assert Counter(single["kinds_tried"]) == Counter(shards[0]["kinds_tried"]) + Counter(shards[1]["kinds_tried"])
    assert main(["explore", "merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--report", str(tmp_path / "m")]) == 0
    assert json.loads((tmp_path / "m" / "exploration.json").read_text())["plans"] == 6
