"""Exploration: fault plans searched with Hypothesis, a failure shrunk and exported as a scenario."""

from durable_harness.harness.explore._explorer import Exploration, Finding, explore, plan_scenario
from durable_harness.harness.explore._export import coverage_lines, export, scenario_yaml
from durable_harness.harness.explore._strategies import Channel, PlanEntry, plans

__all__ = [
    "Channel",
    "Exploration",
    "Finding",
    "PlanEntry",
    "coverage_lines",
    "explore",
    "export",
    "plan_scenario",
    "plans",
    "scenario_yaml",
]
