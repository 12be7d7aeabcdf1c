"""durable-harness: a fault-injection and acceptance-test harness for agent control planes.

The front door for Python users; ``docs/`` explains the concepts. Every name loads lazily, on
first use: importing the package (as the pytest plugin does at start, or as a candidate's own
process does to reach one module of it) imports nothing else.
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

_WHERE = {
    "CandidateCrashed": "durable_harness.harness.candidate._protocol", "CandidateEnv": "durable_harness.harness.candidate._protocol",
    "Entry": "durable_harness.harness._history", "HarnessError": "durable_harness.harness._errors", "History": "durable_harness.harness._history",
    "Scenario": "durable_harness.harness.scenario", "ScenarioError": "durable_harness.harness.scenario", "VirtualClock": "durable_harness.harness._clock",
    "component_random": "durable_harness.harness._seeds", "derive_seed": "durable_harness.harness._seeds", "load_scenario": "durable_harness.harness.scenario",
    "load_scenarios": "durable_harness.harness.scenario", "reproduce_command": "durable_harness.harness._run", "run_scenario": "durable_harness.harness._scenario_run",
    "scenario_seed": "durable_harness.harness._seeds",
}


def __getattr__(name: str) -> Any:
    return load(globals(), _WHERE, name)


def __dir__() -> list[str]:
    return names(globals())
