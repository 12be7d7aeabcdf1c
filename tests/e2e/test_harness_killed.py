"""A harness killed outright (SIGKILL: what a CI timeout does) leaves nothing of its own running:
not the fork server of ``run -j``, not its workers, not the candidates they started."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)


def _ours(where: Path) -> list[str]:
    """Every process working in ``where`` (each process the harness starts inherits its directory)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if Path(os.readlink(entry / "cwd")) == where:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")[:120].decode(errors="replace")
                found.append(f"{entry.name}: {command}")
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


@pytest.mark.slow
def test_run_j2_killed_with_sigkill_leaves_no_process_behind_within_five_seconds(tmp_path: Path) -> None:
    where = tmp_path.resolve()
    command = [shutil.which("durable-harness", path=str(Path(sys.executable).parent)) or "durable-harness",
               "run", "-j", "2", "--report", str(where / "report")]
    harness = subprocess.Popen(command, cwd=where, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(_ours(where)) < 5:  # the fork server, two workers, their candidates
            time.sleep(0.2)
        assert len(_ours(where)) >= 5, _ours(where)
        time.sleep(2)  # in the middle of the catalogue
        harness.send_signal(signal.SIGKILL)
        harness.wait(10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and _ours(where):
            time.sleep(0.1)
        assert _ours(where) == [], "left behind 5 s after the harness was killed"
    finally:
        for line in _ours(where):
            os.kill(int(line.split(":")[0]), signal.SIGKILL)
