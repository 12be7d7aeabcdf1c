"""The pytest plugin (entry point ``pytest11``): scenario files as test items, and a fixture.

With ``--dh-candidate SPEC`` (a factory, or ``'cmd:<command line>'`` for a control plane that is a
process, run by the process driver) every collected ``*.yaml`` scenario file becomes one test that runs
that scenario against the candidate; a failing verdict is a ``CheckFailed`` (an AssertionError,
so pytest reports a failure, not an error) that ends with the command reproducing it. An unknown
verdict, or a run that could not be judged, is a ``CheckUnknown``: pytest still reports a failure
(unknown is not green), and Allure shows it *broken*, as the command line's ``--allure`` does.

With allure-pytest active (``--alluredir DIR``) each test carries what ``durable_harness.reports.allure`` says a
run's result carries: the verdict and the counters as labels, the because lines as its
description, and the verdict, because and witnesses, ``history.jsonl``, the timeline, ``run.json``
and the reproduce command as attachments. Under ``-n auto`` (pytest-xdist) the scenarios spread
over the cores, and the workers share one zygote (the process candidates are forked from) started
by the controlling process; each test's result is the same as the command line's for that scenario.

``--dh-explore 30s`` adds one exploration test per workload (``durable_harness.harness.explore``): it fails with
the shrunk plan, as a scenario file to keep, when a plan breaks the candidate.

Without ``--dh-candidate`` (or ``--dh-explore``) the plugin only offers the ``durable_harness_run`` fixture and stays out
of the way. It wires options and items; it does not judge (the run's verdict does) or render.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness.scenario import ScenarioError, load_scenario

__all__ = ["CheckFailed", "CheckUnknown", "durable_harness_run"]


class CheckFailed(AssertionError):
    """A scenario's verdict was fail."""


class CheckUnknown(Exception):
    """A scenario's verdict was unknown, or its run could not be judged: nothing was proven."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("durable-harness")
    group.addoption("--dh-candidate", default=None, metavar="SPEC",
                    help="run collected scenario YAML files against this candidate (reference | mutant:NAME | "
                         "module:factory | 'cmd:<command line>' for a process)")
    group.addoption("--dh-seed", type=int, default=None, metavar="N", help="root seed for every scenario (default: per scenario)")
    group.addoption("--dh-report", default=None, metavar="DIR", help="write run.json and history.jsonl per scenario here")
    group.addoption("--dh-candidate-next", default=None, metavar="SPEC",
                    help="the version a scenario's deploy action starts (default: --dh-candidate itself)")
    group.addoption("--dh-strict-coverage", action="store_true", default=False,
                    help="a fault or action the candidate's design never met (not reached, not exercised) makes the "
                         "scenario unknown, a failed test (default: coverage, not a failure)")
    group.addoption("--dh-explore", default=None, metavar="TIME",
                    help="add one exploration test per workload (budget TIME each, e.g. 30s) against --dh-candidate "
                         "(default: reference); a plan that breaks it fails the test with the scenario file to keep")


def pytest_configure(config: pytest.Config) -> None:
    """With a Python candidate to run, the zygote its instances are forked from starts now, while
    pytest collects, in the controlling process only: pytest-xdist's workers, started after this,
    share it (``DH_ZYGOTE``) rather than each start one."""
    candidate = config.getoption("--dh-candidate", None)
    from durable_harness.harness._plugins import PluginError, load_plugins

    try:
        load_plugins()  # a team's own fault kinds, checkers, services, workloads (durable_harness.plugins)
    except PluginError as err:
        raise pytest.UsageError(str(err)) from None
    if config.getoption("--dh-strict-coverage", False):  # pytest-xdist's workers inherit it
        from durable_harness.harness._coverage import STRICT_COVERAGE_ENV

        os.environ[STRICT_COVERAGE_ENV] = "1"
    following = config.getoption("--dh-candidate-next", None)
    if following:  # as --candidate-next: checked against the candidate's driver, inherited by the workers
        from durable_harness.harness._run import NEXT_ENV, candidate_next

        try:
            candidate_next(str(candidate or "reference"), {NEXT_ENV: following})
        except ValueError as err:
            raise pytest.UsageError(str(err)) from None
        os.environ[NEXT_ENV] = following
    if (candidate is None and config.getoption("--dh-explore", None) is None) or hasattr(config, "workerinput"):
        return
    from durable_harness.harness._settings import check_settings

    try:
        check_settings()
    except ValueError as err:
        raise pytest.UsageError(str(err)) from None
    if config.getoption("collectonly", False):  # an editor's test discovery runs nothing: no SDK warm-up for it
        return
    from durable_harness.harness.isolation._zygote import share_zygote
    from durable_harness.harness.drivers import driver_kind

    if driver_kind(str(candidate or "reference")).zygote:
        share_zygote()


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    # The crash-point sweeps first (a stable sort; they take longest, as ``run -j`` starts them):
    # under pytest-xdist the other scenarios then fill the other workers while a sweep runs.
    items.sort(key=lambda item: not (isinstance(item, ScenarioItem) and item.scenario.sweep is not None))
    budget = config.getoption("--dh-explore")
    if budget is None:
        return
    from durable_harness.harness._cli_explore import budget_seconds
    from durable_harness.harness.workloads import workload_names

    try:
        seconds = budget_seconds(str(budget))
    except Exception as err:
        raise pytest.UsageError(f"--dh-explore: {err}") from None
    for workload in workload_names():
        items.append(ExploreItem.from_parent(session, name=f"explore[{workload}]", workload=workload, budget_s=seconds))


class ExploreItem(pytest.Item):
    """One exploration: Hypothesis searches fault plans against the candidate for ``budget_s``."""

    def __init__(self, *, workload: str, budget_s: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.workload = workload
        self.budget_s = budget_s

    def runtest(self) -> None:
        from durable_harness.harness.explore import explore, scenario_yaml

        candidate = self.config.getoption("--dh-candidate") or "reference"
        seed = self.config.getoption("--dh-seed") or 0
        result = explore(candidate, self.workload, seed=seed, budget_s=self.budget_s)
        if result.finding is not None:
            _id, text = scenario_yaml(result, result.finding)
            raise CheckFailed(f"explore[{self.workload}] found a plan that breaks {result.finding.counter} after "
                              f"{result.plans_run} plans: {result.finding.because}\n\n{text}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, CheckFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int, str]:
        return "durable-harness", 0, f"explore {self.workload}"


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if parent.config.getoption("--dh-candidate") is None or file_path.suffix != ".yaml":
        return None
    return ScenarioFile.from_parent(parent, path=file_path)


class ScenarioFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        try:
            scenario = load_scenario(self.path)
        except ScenarioError as err:
            raise self.CollectError(str(err)) from None
        yield ScenarioItem.from_parent(self, name=scenario.id, scenario=scenario)


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario

    def runtest(self) -> None:
        config = self.config
        from durable_harness.harness._run import driver_problem

        unrunnable = driver_problem(self.scenario, config.getoption("--dh-candidate"))
        if unrunnable is not None:  # a catalogue folder may hold scenarios for another driver
            pytest.skip(f"{self.scenario.id}: {unrunnable}")
        from durable_harness.harness.services._applicability import not_applicable

        needs_fake = not_applicable(self.scenario)
        if needs_fake is not None:  # DH_SERVICE_<NAME>: a real service, which this scenario cannot mean
            pytest.skip(f"{self.scenario.id}: not applicable against a real service: {needs_fake}")
        report = config.getoption("--dh-report")
        allure = config.pluginmanager.has_plugin("allure_listener")  # registered by allure-pytest for --alluredir
        if report:
            doc = self._run(Path(report) / self.scenario.id, allure)
        else:
            with tempfile.TemporaryDirectory(prefix="durable-harness-") as tmp:
                doc = self._run(Path(tmp) / self.scenario.id if allure else None, allure)
        self.user_properties.append(("history_digest", doc["history"]["digest"]))
        from durable_harness.reports.allure import allure_status

        status = allure_status(doc)
        if status == "failed":
            raise CheckFailed(failure_text(doc))
        if status == "broken":
            raise CheckUnknown(failure_text(doc))

    def _run(self, out: Path | None, allure: bool) -> dict[str, Any]:
        from durable_harness.harness._scenario_run import run_scenario

        doc = run_scenario(self.scenario, self.config.getoption("--dh-candidate"), self.config.getoption("--dh-seed"), out)
        if allure:
            _attach_allure(doc, out.parent if out is not None else None)
        return doc

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, (CheckFailed, CheckUnknown)):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario {self.scenario.id}"


def _attach_allure(doc: Mapping[str, Any], report_dir: Path | None) -> None:
    """Hand allure-pytest what ``durable_harness.reports.allure`` says a run's result carries."""
    import allure

    from durable_harness.reports import ReportFiles
    from durable_harness.reports.allure import allure_description, allure_labels, attachments

    for name, value in allure_labels(doc):
        allure.dynamic.label(name, value)  # type: ignore[no-untyped-call]
    allure.dynamic.parameter("candidate", str(doc["candidate"]["spec"]))  # allure-pytest quotes a string
    allure.dynamic.parameter("seed", int(doc["seed"]))
    allure.dynamic.description(allure_description(doc))  # type: ignore[no-untyped-call]
    for name, content, mime, ext in attachments(doc, ReportFiles(report_dir) if report_dir is not None else None):
        allure.attach(content, name=name, attachment_type=mime, extension=ext)


def failure_text(doc: Mapping[str, Any]) -> str:
    """What the command line prints for the run: the verdict, why, and the reproduce command."""
    from durable_harness.harness._cli_output import run_lines

    return "\n".join(run_lines(doc))


@pytest.fixture
def durable_harness_run(tmp_path: Path) -> Callable[..., dict[str, Any]]:
    """``durable_harness_run(path, candidate="reference", seed=None) -> run.json dict``."""
    def run(path: str | Path, candidate: str = "reference", seed: int | None = None) -> dict[str, Any]:
        from durable_harness.harness._scenario_run import run_scenario

        scenario = load_scenario(path)
        return run_scenario(scenario, candidate, seed, tmp_path / scenario.id)
    return run
