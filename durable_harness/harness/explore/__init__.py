"""Exploration: plans searched with Hypothesis (variations of the catalogue and fresh ones, each in
a world of its own), a failure shrunk and exported as a scenario."""

from durable_harness.harness.explore._explorer import Exploration, Finding, explore
from durable_harness.harness.explore._export import coverage_lines, export, scenario_yaml
from durable_harness.harness.explore._plans import Plan, catalogue_plans, plan_scenario
from durable_harness.harness.explore._strategies import Channel, PlanEntry, plans

__all__ = [
    "Channel",
    "Exploration",
    "Finding",
    "Plan",
    "PlanEntry",
    "catalogue_plans",
    "coverage_lines",
    "explore",
    "export",
    "plan_scenario",
    "plans",
    "scenario_yaml",
]
