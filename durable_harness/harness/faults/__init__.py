"""Fault kinds (the nemesis), one module each, registered by name."""

from durable_harness.harness.faults import (  # noqa: F401  (registration)
    consistency, crash, drop_stream, duplicate_events, error_after_commit, executor_faults, http_error, lose_response, pause_worker,
    refuse_connection, restart_worker, toxic, unknown_pending_tool_call, webhook_faults,
)
from durable_harness.harness.faults._base import (
    Action, Crash, Cut, Drop, Duplicate, Effect, FaultContext, Hold, Lose, Respond, Rewrite, Trigger,
)
from durable_harness.harness.faults._registry import fault_kind, fault_kinds, get_fault_kind
from durable_harness.harness.faults._request_fault import RequestFault

__all__ = [
    "Action",
    "Crash",
    "Cut",
    "Drop",
    "Duplicate",
    "Effect",
    "FaultContext",
    "Hold",
    "Lose",
    "RequestFault",
    "Respond",
    "Rewrite",
    "Trigger",
    "fault_kind",
    "fault_kinds",
    "get_fault_kind",
]
