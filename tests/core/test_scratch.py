"""Where a run keeps the candidate's files (``_scratch``): ``DURABLE_HARNESS_SCRATCH`` when set, a memory
filesystem with room to spare by default, the system's temporary folder otherwise; a setting that
names no writable folder is bad usage, said before anything runs, naming the variable and its value.
What the candidate was given (its ``database_url``) is the ground truth of where its files went."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from durable_harness.harness import _scratch
from durable_harness.harness._run import run_once
from durable_harness.harness._scratch import MEMORY, SCRATCH_ENV, scratch_root
from durable_harness.harness.cli import main
from durable_harness.harness.scenario import load_scenario

REPO = Path(__file__).parents[2]
BASELINE = REPO / "durable_harness" / "scenarios" / "baseline.yaml"


def test_the_setting_wins_and_names_a_writable_folder(tmp_path: Path) -> None:
    assert scratch_root({SCRATCH_ENV: str(tmp_path)}, memory=tmp_path / "nowhere") == str(tmp_path)
    for bad in (tmp_path / "missing", BASELINE):
        with pytest.raises(ValueError, match=f"{SCRATCH_ENV}='{bad}' is not a writable folder"):
            scratch_root({SCRATCH_ENV: str(bad)})


def test_by_default_memory_with_room_else_the_temporary_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert scratch_root({}, memory=tmp_path) == str(tmp_path)  # this disk has a gigabyte free
    assert scratch_root({SCRATCH_ENV: "  "}, memory=tmp_path) == str(tmp_path)  # blank is unset
    assert scratch_root({}, memory=tmp_path / "missing") is None
    monkeypatch.setattr(_scratch, "MIN_FREE_BYTES", 1 << 62)
    assert scratch_root({}, memory=tmp_path) is None  # too little room: the temporary folder


def _where_the_candidate_was_put(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run the baseline with a candidate (the reference, wrapped) that writes down the database it was given."""
    seen = tmp_path / "seen.txt"
    (tmp_path / "tells_where.py").write_text(
        "from durable_harness.candidates.reference import create\n\n"
        "def make(env):\n"
        f"    open({str(seen)!r}, 'w').write(env.database_url)\n"
        "    return create(env)\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    doc, _ = run_once(load_scenario(BASELINE), "tells_where:make")
    assert (doc["verdict"], doc["error"]) == ("pass", None)
    url = seen.read_text()
    assert url.startswith("sqlite:///"), url
    return Path(url.removeprefix("sqlite:///"))


def test_the_candidates_database_is_where_the_setting_says_and_goes_with_its_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv(SCRATCH_ENV, str(scratch))
    database = _where_the_candidate_was_put(tmp_path, monkeypatch)
    assert database.parent.parent == scratch and database.parent.name.startswith("durable-harness-candidate-")
    assert list(scratch.iterdir()) == []  # deleted with its run


@pytest.mark.skipif(scratch_root({}) != str(MEMORY), reason=f"no memory filesystem with room at {MEMORY}")
def test_by_default_the_candidates_database_is_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SCRATCH_ENV, raising=False)
    assert _where_the_candidate_was_put(tmp_path, monkeypatch).parent.parent == MEMORY


def test_a_setting_that_names_no_folder_is_bad_usage_before_anything_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(SCRATCH_ENV, str(tmp_path / "missing"))
    report = tmp_path / "report"
    assert main(["run", "--scenario", str(BASELINE), "--report", str(report)]) == 3
    assert f"{SCRATCH_ENV}='{tmp_path / 'missing'}' is not a writable folder" in capsys.readouterr().err
    assert not (report / "baseline").exists()  # nothing ran


def test_the_plugin_says_so_too(tmp_path: Path) -> None:
    env = {**os.environ, SCRATCH_ENV: str(tmp_path / "missing")}
    done = subprocess.run([sys.executable, "-m", "pytest", "--dh-candidate", "reference", str(BASELINE), "-q",
                           "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error
    assert f"{SCRATCH_ENV}='{tmp_path / 'missing'}' is not a writable folder" in done.stdout + done.stderr
