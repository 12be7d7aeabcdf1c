"""Helpers for tests of the process driver: mark a candidate's processes, then count the survivors.

A candidate command is run through ``env DH_PROCESS_MARK=<token> ...``: the candidate and every
process it starts inherit the mark, so a test can find them all in ``/proc`` (loopback only,
this machine only) and prove that none is left behind.
"""

from __future__ import annotations

import os
import secrets
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).parents[2]
MARK = "DH_PROCESS_MARK"
PYTHON = shlex.quote(sys.executable)
REFERENCE = f"{PYTHON} -m durable_harness.candidates.reference.serve"
NODE_EXAMPLE = f"node {shlex.quote(str(REPO / 'examples' / 'node-control-plane' / 'server.js'))}"
MISBEHAVING = f"{PYTHON} {shlex.quote(str(REPO / 'tests' / 'e2e' / 'process_candidates' / 'misbehaving.py'))}"


def new_mark() -> str:
    return secrets.token_hex(8)


def marked(command: str, mark: str, **env: str) -> str:
    """The ``--candidate`` spec of ``command`` with every process it starts marked."""
    extra = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return f"cmd:env {MARK}={mark} {extra} {command}".replace("  ", " ")


def survivors(mark: str) -> list[int]:
    """The pids of the live processes that carry ``mark``."""
    needle = f"{MARK}={mark}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0") and not _zombie(entry):
                found.append(int(entry.name))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


def _zombie(entry: Path) -> bool:
    try:
        return (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def wait_gone(mark: str, timeout_s: float = 15.0) -> list[int]:
    """Wait (bounded) until no process carries ``mark``; the survivors, if any."""
    end = time.monotonic() + timeout_s
    while True:
        left = survivors(mark)
        if not left or time.monotonic() > end:
            return left
        time.sleep(0.1)


def wait_present(mark: str, timeout_s: float = 60.0) -> list[int]:
    end = time.monotonic() + timeout_s
    while True:
        found = survivors(mark)
        if found or time.monotonic() > end:
            return found
        time.sleep(0.05)


def kill_marked(mark: str) -> None:
    """Last resort for a failing test: do not leave what it found behind."""
    for pid in survivors(mark):
        try:
            os.kill(pid, 9)
        except OSError:
            pass


def as_process(command: str, scenario: object, out: Path | None = None) -> dict[str, object]:
    """Run ``scenario`` against the process ``command`` with its processes marked; none may outlive the run."""
    from durable_harness.harness import run_scenario

    mark = new_mark()
    try:
        return run_scenario(scenario, marked(command, mark), None, out)  # type: ignore[arg-type]
    finally:
        left = wait_gone(mark)
        kill_marked(mark)
        assert left == [], f"processes left behind: {left}"

# The scales a run with a worker restarted beside others (``restart_worker``) is tried at: a
# process's start takes real seconds, and at a high scale a busy machine's start can outlast the job
# (the fault then says "not reached", honestly). A slower machine makes such a test slower, never red.
REACH_SCALES = (5.0, 2.0, 1.0)


def until_reached(run: Callable[[float], dict[str, Any]], monkeypatch: Any) -> dict[str, Any]:
    """``run(scale)`` at each of ``REACH_SCALES`` until no fault of its run is "not reached"; the last run."""
    from durable_harness.harness._realtime import TIME_SCALE_ENV

    doc: dict[str, Any] = {}
    for scale in REACH_SCALES:
        monkeypatch.setenv(TIME_SCALE_ENV, f"{scale:g}")
        doc = run(scale)
        if not any(f["status"] == "not_reached" for f in doc["faults"]):
            return doc
    return doc


def story(out: Path) -> str:
    """What a failing process run did, for whoever reads the failure: the candidate's last lines and
    the last entries of the history (the run's real time cannot be replayed)."""
    lines = []
    for log in sorted(out.glob("candidate-*.log")):
        lines += [f"--- {log.name} (last lines)", *log.read_text(errors="replace").splitlines()[-25:]]
    history = out / "history.jsonl"
    if history.exists():
        lines += ["--- history.jsonl (last entries)", *(line[:300] for line in history.read_text().splitlines()[-40:])]
    return "\n" + "\n".join(lines)
