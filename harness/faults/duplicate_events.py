"""``duplicate_events``: deliver some events of an SSE stream twice (at-least-once delivery).

The SDK's ``sessions.stream`` helper dedupes by ``event_id``; a control plane reading the raw
stream must too, or it acts twice on one event.
"""

from __future__ import annotations

from harness.faults._base import Action, Duplicate, FaultContext
from harness.faults._registry import fault_kind
from harness.faults._request_fault import RequestFault


@fault_kind("duplicate_events")
class DuplicateEvents(RequestFault):
    point = "stream"

    def action(self, ctx: FaultContext) -> Action:
        events = self.params.get("events", [1])
        return Duplicate(events=tuple(int(n) for n in events))
