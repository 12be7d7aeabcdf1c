"""``explore --shard K/N`` and ``explore merge``: the shares of the first pass are disjoint, cover it
and do not depend on anything but the seed; one shard is the unsharded search; a merge unions the
shards' example databases, keeps the smallest finding, and refuses folders of different searches."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis.database import DirectoryBasedExampleDatabase

from durable_harness.harness._shard import Shard
from durable_harness.harness.cli import main
from durable_harness.harness.explore import Exploration, Finding, catalogue_plans, scenario_yaml
from durable_harness.harness.explore._explorer import _catalogue_pass, _Remembered
from durable_harness.harness.explore._merge import MergeError, merge_explorations, search_command
from durable_harness.harness.explore._plans import Plan
from durable_harness.harness.explore._shards import first_pass_share, search_random
from durable_harness.harness.scenario import catalogue_dir, load_scenario

ARTICLE = catalogue_plans(catalogue_dir(), "article")
ORIGINALS = {p.key() for p in ARTICLE}
KEY = "mutant:blind-retry/article//3/corpus/v2"


def first_pass(seed: int) -> list[str]:
    """The keys of the first pass the explorer shares out (the catalogue's plans as written left out)."""
    return [p.key() for p in _catalogue_pass(ARTICLE, seed, None) if p.key() not in ORIGINALS]


@pytest.mark.parametrize("count", [2, 3, 7])
def test_the_shares_are_disjoint_and_make_the_whole_first_pass(count: int) -> None:
    whole = first_pass(5)
    shares = [first_pass_share(whole, Shard(k, count)) for k in range(1, count + 1)]
    assert Counter(key for share in shares for key in share) == Counter(whole)
    assert max(map(len, shares)) - min(map(len, shares)) <= 1
    assert all(share for share in shares)  # the catalogue has plans enough for seven shards
    assert shares == [first_pass_share(first_pass(5), Shard(k, count)) for k in range(1, count + 1)]  # deterministic


def test_one_shard_is_the_unsharded_search() -> None:
    whole = first_pass(5)
    assert first_pass_share(whole, Shard(1, 1)) == first_pass_share(whole, None) == whole
    streams = [search_random(9, shard).random() for shard in (None, Shard(1, 1))]
    assert streams == [random.Random(9).random()] * 2


def test_each_shard_draws_from_a_stream_of_its_own() -> None:
    draws = {k: [search_random(9, Shard(k, 3)).random() for _ in range(2)] for k in (1, 2, 3)}
    assert all(a == b for a, b in draws.values())  # the same shard, the same stream
    assert len({a for a, _ in draws.values()} | {random.Random(9).random()}) == 4


def test_more_shards_than_plans_leaves_a_share_empty_not_an_error() -> None:
    assert first_pass_share(["a", "b"], Shard(3, 3)) == []


# -- merge -------------------------------------------------------------------------------------------
LOST_UPLOAD = next(p for p in ARTICLE if p.origin == "lost-media-response-1")
BIGGER = Plan("article", LOST_UPLOAD.entries, {"params": {"images": 2}, "workers": 2}, LOST_UPLOAD.origin)


def shard_folder(root: Path, name: str, shard: Shard, *, plan: Plan | None = None, found_s: float = 1.0,
                 seed: int = 3, candidate: str = "mutant:blind-retry", values: tuple[bytes, ...] = ()) -> Path:
    """A folder as ``explore --shard`` leaves it: exploration.json, and hypothesis/ with findings.json."""
    folder = root / name
    database = DirectoryBasedExampleDatabase(str(folder / "hypothesis"))
    for value in values:
        database.save(KEY.encode(), value)
    doc: dict[str, Any] = {
        "candidate": candidate, "workload": "article", "seed": seed, "shard": shard.to_json(),
        "search": {"kinds": None, "max_faults": 3, "actions": True, "catalogue": True}, "budget_s": 30.0,
        "max_plans": 10_000, "plans": 10, "elapsed_s": 30.0, "first_finding_s": None, "first_finding_plans": None,
        "harness_errors": 0, "kinds_tried": {"lose_response": 4}, "kinds_fired": {"lose_response": 3},
        "at_risk": {"duplicate_media": 2}, "finding": None}
    if plan is not None:
        exploration = Exploration(seed=seed, candidate=candidate, workload="article", plans_run=10, shard=shard)
        finding = Finding(plan, "duplicate_media", "1 duplicate upload", "")
        scenario_id, text = scenario_yaml(exploration, finding)
        doc["first_finding_s"], doc["first_finding_plans"] = found_s, 4
        doc["finding"] = {"counter": "duplicate_media", "because": "1 duplicate upload", "scenario": scenario_id,
                          "plan": {"entries": list(plan.entries), "world": dict(plan.world), "origin": plan.origin,
                                   "deadline_s": plan.deadline_s}, "size": list(plan.size()), "yaml": text}
        (folder / "hypothesis").mkdir(parents=True, exist_ok=True)
        (folder / "hypothesis" / "findings.json").write_text(json.dumps({KEY: doc["finding"]["plan"]}), encoding="utf-8")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "exploration.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder


def test_the_merge_unions_the_databases_and_keeps_the_smallest_finding(tmp_path: Path) -> None:
    one = shard_folder(tmp_path, "s1", Shard(1, 2), plan=BIGGER, found_s=0.5, values=(b"a", b"b"))
    two = shard_folder(tmp_path, "s2", Shard(2, 2), plan=LOST_UPLOAD, found_s=9.0, values=(b"b", b"c"))
    doc = merge_explorations([one, two], tmp_path / "out")
    merged = DirectoryBasedExampleDatabase(str(tmp_path / "out" / "hypothesis"))
    assert sorted(merged.fetch(KEY.encode())) == [b"a", b"b", b"c"]
    assert doc["merged"]["database"]["duplicates"] >= 1  # b, and the key in Hypothesis's list of keys
    assert doc["finding"]["shard"] == "2/2" and doc["finding"]["size"] == list(LOST_UPLOAD.size())
    assert (doc["first_finding_s"], doc["first_finding_plans"], doc["plans"], doc["exit_code"]) == (9.0, 4, 20, 1)
    assert doc["kinds_tried"] == {"lose_response": 8} and doc["merged"]["missing"] == []
    remembered = _Remembered(tmp_path / "out" / "hypothesis", KEY).plans("article")
    assert [p.key() for p in remembered] == [LOST_UPLOAD.key()]  # a rerun tries the merged finding first


def test_of_two_findings_of_one_size_the_earlier_is_kept(tmp_path: Path) -> None:
    same = Plan("article", LOST_UPLOAD.entries, {"params": {"images": 2}}, LOST_UPLOAD.origin)
    assert same.size() == Plan("article", LOST_UPLOAD.entries, {"params": {"preamble_items": 3}}).size()
    late = shard_folder(tmp_path, "s1", Shard(1, 2), plan=same, found_s=7.0)
    early = shard_folder(tmp_path, "s2", Shard(2, 2),
                         plan=Plan("article", LOST_UPLOAD.entries, {"params": {"preamble_items": 3}}), found_s=2.0)
    doc = merge_explorations([late, early], tmp_path / "out")
    assert doc["finding"]["shard"] == "2/2" and doc["first_finding_s"] == 2.0
    findings = json.loads((tmp_path / "out" / "hypothesis" / "findings.json").read_text())
    assert findings[KEY]["world"] == {"params": {"preamble_items": 3}}


@pytest.mark.parametrize("odd", [{"seed": 4}, {"candidate": "mutant:no-reconcile"}])
def test_shards_of_different_searches_are_refused_naming_both_folders(tmp_path: Path, odd: dict[str, Any]) -> None:
    one = shard_folder(tmp_path, "shard-one", Shard(1, 2))
    two = shard_folder(tmp_path, "shard-two", Shard(2, 2), **odd)
    with pytest.raises(MergeError, match="shard-one.*shard-two.*not shards of one search"):
        merge_explorations([one, two], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_same_shard_twice_or_two_splits_are_refused(tmp_path: Path) -> None:
    one = shard_folder(tmp_path, "a", Shard(1, 2))
    with pytest.raises(MergeError, match="both shard 1/2"):
        merge_explorations([one, shard_folder(tmp_path, "b", Shard(1, 2))], tmp_path / "out")
    with pytest.raises(MergeError, match="one N"):
        merge_explorations([one, shard_folder(tmp_path, "c", Shard(2, 3))], tmp_path / "out")
    with pytest.raises(MergeError, match="own --report folder"):
        merge_explorations([one], one)


def test_a_missing_shard_is_no_verdict_unless_something_was_found(tmp_path: Path) -> None:
    quiet = shard_folder(tmp_path, "quiet", Shard(1, 3))
    assert merge_explorations([quiet], tmp_path / "out")["exit_code"] == 3
    found = shard_folder(tmp_path, "found", Shard(2, 3), plan=LOST_UPLOAD)
    doc = merge_explorations([quiet, found], tmp_path / "out")
    assert doc["exit_code"] == 1 and doc["merged"]["missing"] == ["3/3"]


def test_the_command_merges_exports_and_says_how_to_reproduce(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = shard_folder(tmp_path, "s1", Shard(1, 2))
    two = shard_folder(tmp_path, "s2", Shard(2, 2), plan=LOST_UPLOAD)
    out = tmp_path / "merged"
    assert main(["explore", "merge", str(one), str(two), "--report", str(out)]) == 1
    printed = capsys.readouterr().out
    doc = json.loads((out / "exploration.json").read_text())
    exported = Path(doc["finding"]["exported"])
    assert exported.parent == out and load_scenario(exported).seed == 3
    assert f"reproduce: durable-harness run --candidate mutant:blind-retry --scenario {exported}" in printed
    assert doc["rerun"] == search_command(doc, report=out) and doc["rerun"] in printed
    assert "FOUND by shard 2/2" in printed and "shard 1/2 (" in printed


def test_a_bad_shard_or_folder_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "--shard", "3/2"]) == 3
    assert "--shard '3/2'" in capsys.readouterr().err
    assert main(["explore", "merge", str(tmp_path / "nowhere"), "--report", str(tmp_path / "out")]) == 3
    err = capsys.readouterr().err
    assert "nowhere" in err and "has no exploration.json" in err


def test_search_options_before_merge_are_a_usage_error_not_ignored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "--candidate", "mutant:blind-retry", "--seed", "3", "merge", str(tmp_path / "a"),
                 "--report", str(tmp_path / "out")]) == 3
    err = capsys.readouterr().err
    assert "--candidate, --seed before `merge` would be ignored" in err and err.count("\n") == 1
