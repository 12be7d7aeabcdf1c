"""Fixtures for the repository's own tests (the plugin's fixtures come from its entry point)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).parent

pytest_plugins = ["pytester"]


@pytest.fixture
def catalogue() -> Path:
    return REPO / "durable_harness" / "scenarios"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first, then the end-to-end runs (a stable sort): under ``-n auto`` the workers
    start with the long runs and end on the short ones, instead of one worker finishing a long sweep
    while the other is idle (``make test`` also lets an idle worker take tests queued for another)."""
    items.sort(key=lambda item: (item.get_closest_marker("slow") is None, item.get_closest_marker("e2e") is None))


_FILE_SECONDS: dict[str, float] = {}
SLOWEST = 10  # files the summary names when a run has many tests


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Each test's time, by file (under pytest-xdist the controlling process receives every report)."""
    path = report.nodeid.split("::", 1)[0]
    _FILE_SECONDS[path] = _FILE_SECONDS.get(path, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The ten slowest test files of a whole-suite run (set-up, call and tear-down, in every worker)."""
    if hasattr(terminalreporter.config, "workerinput") or len(_FILE_SECONDS) < 3 * SLOWEST:
        return
    slowest = sorted(_FILE_SECONDS.items(), key=lambda kv: kv[1], reverse=True)[:SLOWEST]
    terminalreporter.write_sep("-", f"the {SLOWEST} slowest test files (seconds of test time, all workers)")
    for path, seconds in slowest:
        terminalreporter.write_line(f"{seconds:8.1f}  {path}")
