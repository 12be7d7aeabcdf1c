"""The pytest plugin (entry point ``pytest11``): scenario files as test items, and a fixture.

With ``--dh-candidate SPEC`` every collected ``*.yaml`` scenario file becomes one test that runs
that scenario against the candidate; a failing verdict is a ``CheckFailed`` (an AssertionError,
so pytest reports a failure, not an error) that ends with the command reproducing it. Without the
option the plugin only offers the ``durable_harness_run`` fixture and stays out of the way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.scenario import ScenarioError, load_scenario

__all__ = ["CheckFailed", "durable_harness_run"]


class CheckFailed(AssertionError):
    """A scenario's verdict was not pass."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("durable-harness")
    group.addoption("--dh-candidate", default=None, metavar="SPEC",
                    help="run collected scenario YAML files against this candidate (reference | mutant:NAME | module:factory)")
    group.addoption("--dh-seed", type=int, default=None, metavar="N", help="root seed for every scenario (default: per scenario)")
    group.addoption("--dh-report", default=None, metavar="DIR", help="write run.json and history.jsonl per scenario here")


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
        candidate = config.getoption("--dh-candidate")
        report = config.getoption("--dh-report")
        out = Path(report) / self.scenario.id if report else None
        from harness._run import run_scenario

        doc = run_scenario(self.scenario, candidate, config.getoption("--dh-seed"), out)
        self.user_properties.append(("history_digest", doc["history"]["digest"]))
        if doc["verdict"] != "pass":
            raise CheckFailed(failure_text(doc))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, CheckFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario {self.scenario.id}"


def failure_text(doc: dict[str, Any]) -> str:
    lines = [f"{doc['scenario']['id']}: {doc['verdict']} (safety {doc['safety']}, liveness {doc['liveness']})"]
    if doc.get("error"):
        lines.append(f"  harness: {doc['error']}")
    for c in doc["checkers"]:
        if c["verdict"] != "pass":
            lines.append(f"  {c['name']}: {c['verdict']}: {c['because']}")
            lines += [f"    witness #{w['index']} t={w['time_s']}s: {w['summary']}" for w in c["witnesses"][:5]]
    lines.append(f"reproduce: {doc['reproduce']}")
    return "\n".join(lines)


@pytest.fixture
def durable_harness_run(tmp_path: Path) -> Callable[..., dict[str, Any]]:
    """``durable_harness_run(path, candidate="reference", seed=None) -> run.json dict``."""
    def run(path: str | Path, candidate: str = "reference", seed: int | None = None) -> dict[str, Any]:
        from harness._run import run_scenario

        scenario = load_scenario(path)
        return run_scenario(scenario, candidate, seed, tmp_path / scenario.id)
    return run
