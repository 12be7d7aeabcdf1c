"""``drop_stream``: cut an SSE stream after event k, as a clean EOF or a reset; no replay.

With ``mode: reset`` the client reads a truncated body and the SDK raises ``APIConnectionError``;
with ``mode: eof`` the stream just ends. Either way the events after k are never delivered.
"""

from __future__ import annotations

from harness.faults._base import Action, Cut, FaultContext
from harness.faults._registry import fault_kind
from harness.faults._request_fault import RequestFault


@fault_kind("drop_stream")
class DropStream(RequestFault):
    point = "stream"

    def action(self, ctx: FaultContext) -> Action:
        return Cut(after_events=int(self.params.get("after_events", 1)), mode=str(self.params.get("mode", "reset")))
