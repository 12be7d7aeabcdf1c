"""Fixtures for the repository's own tests (the plugin's fixtures come from its entry point)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).parent
# Seconds each long test took in a whole-suite run (those of 3 s or more), to start the longest first.
# Refresh it after a change of the suite: DH_WRITE_DURATIONS=tests/durations.json make test
DURATIONS = REPO / "tests" / "durations.json"
WRITE_DURATIONS = "DH_WRITE_DURATIONS"

pytest_plugins = ["pytester"]


@pytest.fixture
def catalogue() -> Path:
    return REPO / "durable_harness" / "scenarios"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest tests first, spread over the workers. A test's length is what it took last time
    (``tests/durations.json``); tests not listed there come after those that are, the slow ones
    first, then the end-to-end runs (a stable sort). The tests of a module that has a fixture of
    the module's scope stay together, in their order, as one unit as long as all of them: spread,
    each worker would build that fixture again (a zygote, a catalogue run).

    Under pytest-xdist (``make test``: worksteal), each worker is first given a contiguous share of
    this list, and an idle worker later takes half of what another still has queued, from its end.
    So the units are dealt like cards: the k-th longest goes to the share of worker k modulo their
    number, each share longest first. Each worker starts on long runs and ends on short ones, and
    none is left with the longest ones queued one after the other at the end."""
    known = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        units.setdefault(item.module.__name__ if _shares_a_fixture(item) and item.module else item.nodeid, []).append(item)

    def length(unit: list[pytest.Item]) -> tuple[float, bool, bool]:
        return (-sum(float(known.get(item.nodeid, 0.0)) for item in unit),
                all(item.get_closest_marker("slow") is None for item in unit),
                all(item.get_closest_marker("e2e") is None for item in unit))

    ordered = sorted(units.values(), key=length)
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    shares: list[list[pytest.Item]] = [[] for _ in range(max(workers, 1))]
    for index, unit in enumerate(ordered):
        shares[index % len(shares)].extend(unit)
    items[:] = [item for share in shares for item in share]


def _shares_a_fixture(item: pytest.Item) -> bool:
    """Whether ``item`` uses a fixture built once for its whole module (or class, or package)."""
    info = getattr(item, "_fixtureinfo", None)
    definitions = getattr(info, "name2fixturedefs", {}) if info is not None else {}
    return any(d.scope in ("module", "class", "package") for defs in definitions.values() for d in defs)


_FILE_SECONDS: dict[str, float] = {}
_TEST_SECONDS: dict[str, float] = {}
SLOWEST = 10  # files the summary names when a run has many tests


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Each test's time, by file and by test (under pytest-xdist the controlling process receives
    every report)."""
    path = report.nodeid.split("::", 1)[0]
    _FILE_SECONDS[path] = _FILE_SECONDS.get(path, 0.0) + report.duration
    _TEST_SECONDS[report.nodeid] = _TEST_SECONDS.get(report.nodeid, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The ten slowest test files of a whole-suite run (set-up, call and tear-down, in every worker);
    with ``DH_WRITE_DURATIONS=FILE``, every test of 3 s or more, into FILE (``tests/durations.json``)."""
    if hasattr(terminalreporter.config, "workerinput"):
        return
    out = os.environ.get(WRITE_DURATIONS)
    if out and _TEST_SECONDS:
        long = {k: round(v) for k, v in sorted(_TEST_SECONDS.items()) if v >= 3}
        Path(out).write_text(json.dumps(long, indent=0, separators=(",", ": ")) + "\n")
        terminalreporter.write_line(f"durations of {len(long)} tests of 3 s or more: {out}")
    if len(_FILE_SECONDS) < 3 * SLOWEST:
        return
    slowest = sorted(_FILE_SECONDS.items(), key=lambda kv: kv[1], reverse=True)[:SLOWEST]
    terminalreporter.write_sep("-", f"the {SLOWEST} slowest test files (seconds of test time, all workers)")
    for path, seconds in slowest:
        terminalreporter.write_line(f"{seconds:8.1f}  {path}")
