"""Scenario files: the schema, the loader and the records it builds."""

from harness.scenario._loader import ScenarioError, catalogue_dir, load_scenario, load_scenarios, scenario_paths
from harness.scenario._model import Expect, FaultSpec, Scenario, WorkloadSpec

__all__ = [
    "Expect",
    "FaultSpec",
    "Scenario",
    "ScenarioError",
    "WorkloadSpec",
    "catalogue_dir",
    "load_scenario",
    "load_scenarios",
    "scenario_paths",
]
