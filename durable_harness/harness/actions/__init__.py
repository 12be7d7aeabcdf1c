"""Scenario actions: what the user, the reviewer and the operator do during a run, one module per
actor, registered by kind."""

from durable_harness.harness.actions import operator, reviewer, user  # noqa: F401  (registration)
from durable_harness.harness.actions._base import ACTORS, ActionContext, ScenarioAction, action_kind, action_kinds, get_action_kind

__all__ = [
    "ACTORS",
    "ActionContext",
    "ScenarioAction",
    "action_kind",
    "action_kinds",
    "get_action_kind",
]
