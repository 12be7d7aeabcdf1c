"""durable-harness: a fault-injection and acceptance-test harness for agent control planes.

The front door for Python users; ``docs/`` explains the concepts. ``run_scenario`` and
``reproduce_command`` load lazily: importing the package (as the pytest plugin does at start)
does not import the fakes, the SDK or the candidates.
"""

from typing import Any

from harness._clock import VirtualClock
from harness._history import Entry, History
from harness._seeds import component_random, derive_seed, scenario_seed
from harness.candidate import CandidateCrashed, CandidateEnv
from harness.scenario import Scenario, ScenarioError, load_scenario, load_scenarios

__all__ = [
    "CandidateCrashed",
    "CandidateEnv",
    "Entry",
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


def __getattr__(name: str) -> Any:
    if name in ("run_scenario", "reproduce_command"):
        from harness import _run
        return getattr(_run, name)
    raise AttributeError(f"module 'harness' has no attribute {name!r}")
