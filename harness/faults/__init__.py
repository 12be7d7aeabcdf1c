"""Fault kinds (the nemesis), one module each, registered by name."""

from harness.faults import (  # noqa: F401  (registration)
    crash, drop_stream, duplicate_events, executor_faults, http_error, lose_response, refuse_connection,
    unknown_pending_tool_call, webhook_faults,
)
from harness.faults._base import Action, Crash, Cut, Drop, Duplicate, Effect, FaultContext, Lose, Respond, Trigger
from harness.faults._registry import fault_kind, fault_kinds, get_fault_kind
from harness.faults._request_fault import RequestFault

__all__ = [
    "Action",
    "Crash",
    "Cut",
    "Drop",
    "Duplicate",
    "Effect",
    "FaultContext",
    "Lose",
    "RequestFault",
    "Respond",
    "Trigger",
    "fault_kind",
    "fault_kinds",
    "get_fault_kind",
]
