"""A command's output is kept in its log up to a bound: a candidate that prints without end does not
fill the report's disk, and its last lines are still there for the error that needs them."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from durable_harness.harness import _supervisor


def test_a_log_stops_at_its_bound_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_supervisor, "MAX_LOG_BYTES", 50_000)
    log = tmp_path / "candidate.log"
    child = _supervisor.spawn([sys.executable, "-c", "for i in range(20000): print(f'line {i} ' + 'x' * 100)"],
                              dict(os.environ), log)
    child.wait_output(30)
    child.kill()
    text = log.read_text()
    assert len(text.encode()) < 50_000 + 200
    assert text.rstrip().endswith("the command's further output is not kept ---")
    assert text.count("the command's further output is not kept") == 1
    assert child.last_lines(1)[0].startswith("line 19999 ")  # the end is still known
