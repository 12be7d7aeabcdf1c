"""One run shared by every test that asserts on it, across pytest-xdist's workers.

A run of a candidate served as a process costs seconds of CPU (its start alone imports the SDK), so
when several tests assert on the same run (the same command, scenario and time scale), the first to
ask runs it and the others read what it left: the run's document and its folder (``history.jsonl``,
the candidate's logs). The folder is under the session's base temporary folder, which every worker
of one pytest session shares; a lock file per run makes the others wait for the first.

A run that raised (a process left behind, an error of the harness) is not kept: the next test to
ask runs it again and fails on its own. ``once`` shares any other value made the same way: a
sweep's points (from its clean run), an in-process run's verdict that two tests read (its history
is the same at every run of its seed, so a second run would only repeat it).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness._realtime import TIME_SCALE_ENV
from durable_harness.harness.drivers.forked import IN_PROCESS
from tests.e2e._processes import as_process


def shared_root(factory: pytest.TempPathFactory) -> Path:
    """The folder of this pytest session's shared runs: the same for every xdist worker."""
    base = factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared-runs"
    root.mkdir(parents=True, exist_ok=True)
    return root


class SharedRuns:
    """``run(command, scenario)``: the run's document and folder, run once per pytest session; ``once``:
    any other costly value the same way (a sweep's points, from its clean run)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ran = 0  # runs this process made (the others it read)

    def run(self, command: str, scenario: Any) -> tuple[dict[str, Any], Path]:
        key = hashlib.sha256(json.dumps([command, repr(scenario)]).encode()).hexdigest()[:12]  # the scenario whole
        out = self.root / f"{scenario.id}-{key}-{_environment()}"

        def make() -> Any:
            shutil.rmtree(out, ignore_errors=True)  # a run that raised in another test: again, from an empty folder
            return as_process(command, scenario, out)

        return self.once(f"{scenario.id}-{key}", make), out

    def once(self, name: str, make: Callable[[], Any]) -> Any:
        """``make()`` (whose value is JSON) once per pytest session under ``name`` and what in the
        environment the run depends on (``_environment``); later calls read it."""
        name = f"{name}-{_environment()}"
        done = self.root / f"{name}.json"
        with (self.root / f"{name}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or by the kernel
            if done.exists():
                return json.loads(done.read_text())
            value = make()
            self.ran += 1
            done.write_text(json.dumps(value))
            return value


def _environment() -> str:
    """The run's time scale (a run in real time depends on it) and its Python candidates' driver
    (``inside``: ``DH_IN_PROCESS=1``; the same history either way, but a test of one driver reads
    that driver's run)."""
    driver = "inside" if os.environ.get(IN_PROCESS) == "1" else "forked"
    return f"scale-{os.environ.get(TIME_SCALE_ENV, 'default')}-{driver}"
