"""``drop_stream``: cut an SSE stream after event k, as a clean EOF or a reset; no replay.

With ``mode: reset`` the client reads a truncated body and the SDK raises ``APIConnectionError``;
with ``mode: eof`` the stream just ends. Either way the events after k are never delivered.
"""

from __future__ import annotations

from durable_harness.harness.faults._base import Action, Cut, FaultContext
from durable_harness.harness.faults._registry import fault_kind
from durable_harness.harness.faults._request_fault import RequestFault


@fault_kind("drop_stream")
class DropStream(RequestFault):
    point = "stream"
    params_schema = {"after_events": {"type": "integer", "minimum": 0, "default": 1},
                     "mode": {"enum": ["eof", "reset"], "default": "reset"}}

    def action(self, ctx: FaultContext) -> Action:
        return Cut(after_events=int(self.param("after_events")), mode=str(self.param("mode")))
