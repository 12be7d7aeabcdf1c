"""Fixtures for the reports tests: one run.json document of each kind, as plain dicts.

The repository root is put on ``sys.path`` when nothing else has (the package is not installed into
the test environment); a root ``conftest.py`` or an editable install makes that line a no-op.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from _run_docs import build_run, errored, failing, unknown  # noqa: E402  (after the path fix-up)


@pytest.fixture
def runs() -> list[dict[str, Any]]:
    """One run of each kind, one candidate, deliberately out of report order."""
    return [
        unknown(build_run("stream_drop")),
        failing(build_run("lost_write")),
        errored(build_run("bad_candidate"), "candidate"),
        build_run("baseline_article"),
    ]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say where the browser tests kept their screenshots (a test records each as a property)."""
    shots = [value for key in ("passed", "failed") for report in terminalreporter.stats.get(key, [])
             for name, value in getattr(report, "user_properties", ()) if name == "screenshot"]
    for shot in shots:
        terminalreporter.write_line(f"report.html screenshot: {shot}")
