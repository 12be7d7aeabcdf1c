"""``duplicate_events``: deliver some events of an SSE stream twice (at-least-once delivery).

The SDK's ``sessions.stream`` helper dedupes by ``event_id``; a control plane reading the raw
stream must too, or it acts twice on one event.
"""

from __future__ import annotations

from durable_harness.harness.faults._base import Action, Duplicate, FaultContext
from durable_harness.harness.faults._registry import fault_kind
from durable_harness.harness.faults._request_fault import RequestFault


@fault_kind("duplicate_events")
class DuplicateEvents(RequestFault):
    point = "stream"
    params_schema = {"events": {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 1},
                                "default": [1]}}

    def action(self, ctx: FaultContext) -> Action:
        events = self.param("events")
        return Duplicate(events=tuple(int(n) for n in events))
