"""Scenario files: the schema, the loader and the records it builds."""

from durable_harness.harness.scenario._loader import (
    ScenarioError, catalogue_dir, load_scenario, load_scenarios, scenario_from_raw, scenario_paths,
)
from durable_harness.harness.scenario._model import ActionSpec, Expect, FaultSpec, Scenario, WorkloadSpec

__all__ = [
    "ActionSpec",
    "Expect",
    "FaultSpec",
    "Scenario",
    "ScenarioError",
    "WorkloadSpec",
    "catalogue_dir",
    "load_scenario",
    "load_scenarios",
    "scenario_from_raw",
    "scenario_paths",
]
