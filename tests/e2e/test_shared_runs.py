"""The suite's shared process runs (``_shared_runs``): made once however many processes ask at once;
a run that raised is not kept."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from tests.e2e._shared_runs import SharedRuns


def _ask(root: str, log: str) -> object:
    def make() -> object:
        with open(log, "a") as out:  # one line per value made
            out.write(f"{os.getpid()}\n")
        return {"made_by": os.getpid()}

    return SharedRuns(Path(root)).once("value", make)


def test_a_value_asked_for_by_four_processes_at_once_is_made_once(tmp_path: Path) -> None:
    log = tmp_path / "made.log"
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        values = pool.starmap(_ask, [(str(tmp_path), str(log))] * 8)
    assert len(log.read_text().splitlines()) == 1
    assert all(v == values[0] for v in values)


def test_a_value_whose_making_raised_is_made_again_by_the_next_to_ask(tmp_path: Path) -> None:
    shared = SharedRuns(tmp_path)

    def broken() -> object:
        raise RuntimeError("a process was left behind")

    with pytest.raises(RuntimeError):
        shared.once("run", broken)
    assert shared.once("run", lambda: [1, 2]) == [1, 2] and shared.once("run", lambda: "not again") == [1, 2]
    assert shared.ran == 1
