"""durable-harness: a fault-injection and acceptance-test harness for agent control planes.

The project's one top-level name. ``durable_harness.harness`` is the engine and its front door
(``run_scenario``, ``load_scenario``, ``CandidateEnv``, …, also reachable from here);
``durable_harness.fakes`` the simulated services, ``durable_harness.reports`` the reports,
``durable_harness.wire`` the HTTP types they share, ``durable_harness.candidates`` the bundled
control planes and ``durable_harness.scenarios`` the catalogue. Names load lazily.
"""

from __future__ import annotations

from typing import Any

from durable_harness._lazy import load, names

__all__ = [
    "CandidateCrashed",
    "CandidateEnv",
    "Entry",
    "HarnessError",
    "History",
    "Scenario",
    "ScenarioError",
    "VirtualClock",
    "component_random",
    "derive_seed",
    "load_scenario",
    "load_scenarios",
    "reproduce_command",
    "run_scenario",
    "scenario_seed",
]

_WHERE = dict.fromkeys(__all__, "durable_harness.harness")


def __getattr__(name: str) -> Any:
    return load(globals(), _WHERE, name)


def __dir__() -> list[str]:
    return names(globals())
