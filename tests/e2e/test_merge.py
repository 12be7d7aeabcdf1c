"""durable-harness merge: shard reports back into one, and every way to refuse foreign or broken ones."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from durable_harness.harness.cli import main

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

SCENARIOS = Path(__file__).parents[2] / "durable_harness" / "scenarios"
FEW = ["baseline", "lost-draft-response", "lost-media-response-2", "draft-503-before-write"]


def run(report: Path, *args: str, candidate: str = "mutant:blind-retry", names: list[str] = FEW) -> int:
    return main(["run", "--candidate", candidate, "--report", str(report), *args,
                 *(a for n in names for a in ("--scenario", str(SCENARIOS / f"{n}.yaml")))])


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("shards")
    assert run(root / "whole") == 1
    for k in (1, 2):
        assert run(root / f"shard-{k}", "--shard", f"{k}/2") in (0, 1)
    return root


def merge(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "durable_harness.harness.cli", "merge", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_shards_hold_disjoint_slices_that_cover_the_plan(shards: Path) -> None:
    plans = [json.loads((shards / f"shard-{k}" / "report.json").read_text()) for k in (1, 2)]
    assert [p["shard"] for p in plans] == [{"index": 1, "count": 2}, {"index": 2, "count": 2}]
    assert sorted(plans[0]["scenarios"] + plans[1]["scenarios"]) == sorted(FEW)
    assert len(plans[0]["scenarios"]) == len(plans[1]["scenarios"]) == 2


def test_merged_shards_equal_the_unsharded_run(shards: Path) -> None:
    result = merge("shard-1", "shard-2", "--report", "merged", cwd=shards)
    assert result.returncode == 1, result.stdout + result.stderr
    whole, merged = shards / "whole", shards / "merged"
    assert {p.parent.name: p.read_bytes() for p in whole.glob("*/run.json")} == \
        {p.parent.name: p.read_bytes() for p in merged.glob("*/run.json")}
    assert (merged / "lost-draft-response" / "history.jsonl").read_bytes() == \
        (whole / "lost-draft-response" / "history.jsonl").read_bytes()
    index = json.loads((merged / "report.json").read_text())
    assert index["scenarios"] == sorted(FEW) and index["completed"] == 4 and not index["partial"]
    assert "merged 2 report folder(s): 4 of 4 scenarios ran for mutant:blind-retry" in result.stdout
    assert (merged / "report.html").is_file() and "duplicate_drafts" in (merged / "summary.md").read_text()


def test_a_missing_shard_makes_the_merge_partial(shards: Path) -> None:
    result = merge("shard-1", "--report", "half", cwd=shards)
    assert result.returncode in (1, 3), result.stdout + result.stderr
    assert "PARTIAL: shard 2/2 not given" in result.stdout
    index = json.loads((shards / "half" / "report.json").read_text())
    assert index["partial"] is True and index["missing_shards"] == ["2/2"]
    summary = (shards / "half" / "summary.md").read_text()
    assert "PARTIAL REPORT" in summary and "not run: none" not in summary
    assert "shard 2/2 not given to the merge; not run: every scenario of shard 2/2" in summary, summary[:600]


def _corrupt(root: Path) -> Path:
    bad = root / "corrupt"
    shutil.copytree(root / "shard-1", bad, dirs_exist_ok=True)
    next(bad.glob("*/run.json")).write_text("{not json")
    return bad


def _unsharded(root: Path) -> Path:
    other = root / "unsharded"
    if not other.exists():
        assert run(other, names=["wordpress-down"]) == 0
    return other


def _foreign(root: Path) -> Path:
    other = root / "foreign"
    if not other.exists():
        assert run(other, candidate="reference", names=["wordpress-down"]) == 0
    return other


@pytest.mark.parametrize(("make", "args", "says"), [
    (_corrupt, ["corrupt", "shard-2"], "'corrupt' is not a report folder that can be merged: "),
    (_foreign, ["shard-1", "foreign"], "'foreign' is a report of candidate reference@"),
    (None, ["shard-1", "shard-1"], "'shard-1' is given twice"),
    (None, ["shard-1", "whole"], "scenario 'baseline' is in both 'shard-1' and 'whole'"),
    (_unsharded, ["shard-1", "unsharded"], "the folders are not shards of one split: 'shard-1' is shard 1/2, "
                                           "'unsharded' is not a shard"),
    (None, ["shard-1", "shard-2", "--report", "shard-2"], "is the merge's own --report folder"),
    (None, ["shard-1", "nowhere"], "'nowhere' is not a report folder that can be merged: report directory"),
])
def test_foreign_corrupt_or_overlapping_folders_are_refused_in_one_line(shards: Path, make: object,
                                                                        args: list[str], says: str) -> None:
    if callable(make):
        make(shards)
    before = sorted(p.name for p in shards.iterdir())
    result = merge(*args, cwd=shards) if "--report" in args else merge(*args, "--report", "refused", cwd=shards)
    assert result.returncode == 3, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and says in result.stderr, result.stderr
    assert sorted(p.name for p in shards.iterdir()) == before  # nothing written


def test_overlapping_shards_are_refused(shards: Path) -> None:
    again = shards / "again"
    if not again.exists():
        assert run(again, "--shard", "1/2") in (0, 1)
    result = merge("shard-1", "again", "--report", "refused", cwd=shards)
    assert result.returncode == 3 and "is in both 'shard-1' and 'again'" in result.stderr, result.stderr


def test_shards_against_different_services_are_refused_and_the_same_ones_carried(shards: Path, tmp_path: Path) -> None:
    """One shard against a real WordPress and one against the fake (or another site) are two worlds."""
    for k in (1, 2):
        shutil.copytree(shards / f"shard-{k}", tmp_path / f"shard-{k}")

    def set_real(k: int, real: dict[str, str], skipped: dict[str, str]) -> None:
        index_path = tmp_path / f"shard-{k}" / "report.json"
        index = json.loads(index_path.read_text())
        index.update(real_services=real, not_applicable=skipped)
        index_path.write_text(json.dumps(index))

    set_real(1, {"wordpress": "http://127.0.0.1:8089"}, {"busy-x": "services.wordpress.auth_mode: why"})
    result = merge("shard-1", "shard-2", "--report", "merged", cwd=tmp_path)
    assert result.returncode == 3 and "the shards ran against different services (wordpress at " \
        "http://127.0.0.1:8089; the fakes)" in result.stderr, result.stderr
    set_real(2, {"wordpress": "http://127.0.0.1:8089"}, {})
    result = merge("shard-1", "shard-2", "--report", "merged", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    index = json.loads((tmp_path / "merged" / "report.json").read_text())
    assert index["real_services"] == {"wordpress": "http://127.0.0.1:8089"} and list(index["not_applicable"]) == ["busy-x"]
    assert "- Real services: wordpress at `http://127.0.0.1:8089`" in (tmp_path / "merged" / "summary.md").read_text()
