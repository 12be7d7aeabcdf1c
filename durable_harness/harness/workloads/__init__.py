"""Workloads, one module each, registered by name: the kinds of job a scenario can submit."""

from durable_harness.harness.workloads import article, coding  # noqa: F401  (registration)
from durable_harness.harness.workloads._registry import (
    Effect, Outcome, Workload, get_workload, group_by_role, register_workload, workload_names,
)

__all__ = [
    "Effect",
    "Outcome",
    "Workload",
    "get_workload",
    "group_by_role",
    "register_workload",
    "workload_names",
]
