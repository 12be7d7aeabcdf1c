"""Fixtures for the repository's own tests (the plugin's fixtures come from its entry point)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).parent

pytest_plugins = ["pytester"]


@pytest.fixture
def catalogue() -> Path:
    return REPO / "durable_harness" / "scenarios"


@pytest.fixture(autouse=True)
def _candidates_driver(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test marked ``inside`` runs its Python candidates in the harness's own process
    (``DH_IN_PROCESS=1``, inherited by the command lines it starts): its subject is what the harness
    judges, not how it contains a candidate. Such a test runs forked too (a process per instance,
    the default) in ``make test-slow``, marked ``forked``: ``tests/e2e/_drivers.py``."""
    inside, forked = (request.node.get_closest_marker(name) is not None for name in ("inside", "forked"))
    if inside or forked:
        from durable_harness.harness.drivers.forked import IN_PROCESS

        if inside:
            monkeypatch.setenv(IN_PROCESS, "1")
        else:  # forked, whatever the environment says
            monkeypatch.delenv(IN_PROCESS, raising=False)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slow tests first, then the end-to-end runs (a stable sort): the workers start with the long
    runs and end on the short ones, instead of one worker finishing a long sweep while the other is
    idle. Under ``--dist worksteal`` (``make test``) each worker is first handed a contiguous share
    of the list, and an idle one takes tests from the end of another's: so the list is dealt out,
    every n-th test to the same share, and each worker starts on its part of the long runs. (In
    one contiguous share, the first worker held every end-to-end run, and the others, done with
    their short tests, took its last ones: the runs in the middle were left for the end, with the
    cores idle around them, about 30 s of a five-minute suite.)"""
    items.sort(key=lambda item: (item.get_closest_marker("slow") is None, item.get_closest_marker("e2e") is None))
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1 and getattr(config.option, "dist", None) == "worksteal":
        items[:] = [item for share in range(workers) for item in items[share::workers]]


_FILE_SECONDS: dict[str, float] = {}
_FILE_CPU: dict[str, float] = {}
SLOWEST = 10  # files the summary names when a run has many tests
_CPU_SINCE = pytest.StashKey[float]()


def _cpu() -> float:
    """CPU seconds of this process and of the processes it started and waited for."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Any:
    item.stash[_CPU_SINCE] = _cpu()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Any:
    """Each phase's CPU goes with its report (under pytest-xdist, to the controlling process)."""
    outcome = yield
    now = _cpu()
    outcome.get_result().user_properties.append(("cpu_s", now - item.stash.get(_CPU_SINCE, now)))
    item.stash[_CPU_SINCE] = now


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Each test's time and CPU, by file (under pytest-xdist the controlling process receives every report)."""
    path = report.nodeid.split("::", 1)[0]
    _FILE_SECONDS[path] = _FILE_SECONDS.get(path, 0.0) + report.duration
    _FILE_CPU[path] = _FILE_CPU.get(path, 0.0) + sum(v for k, v in report.user_properties if k == "cpu_s")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The ten slowest test files of a whole-suite run (set-up, call and tear-down, in every worker),
    and the ten that cost the most CPU: the test's process and the processes it started and waited
    for (a candidate served as a process, a command line). The kernel counts a process's CPU to its
    parent once it has waited for it, with that of the processes it waited for in turn: the
    instances forked from the suite's shared zygote are counted nowhere, and a zygote of a worker's
    own (an environment that differs) brings every instance it forked to the test that stops it."""
    if hasattr(terminalreporter.config, "workerinput") or len(_FILE_SECONDS) <= SLOWEST:  # not for a few files
        return
    for title, figures in (("slowest test files (seconds of test time, all workers)", _FILE_SECONDS),
                           ("test files by CPU (seconds: each test's process and the ones it waited for)", _FILE_CPU)):
        terminalreporter.write_sep("-", f"the {SLOWEST} {title}")
        for path, seconds in sorted(figures.items(), key=lambda kv: kv[1], reverse=True)[:SLOWEST]:
            terminalreporter.write_line(f"{seconds:8.1f}  {path}")
    terminalreporter.write_line(f"{sum(_FILE_CPU.values()):8.1f}  CPU of every test so counted")
