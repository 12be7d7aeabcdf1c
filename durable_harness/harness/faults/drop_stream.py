"""``drop_stream``: cut an SSE stream after event k, as a clean EOF or a reset; no replay.

With ``mode: reset`` the client reads a truncated body and the SDK raises ``APIConnectionError``;
with ``mode: eof`` the stream just ends; with ``mode: error`` the server ends it with an SSE
``error`` event (``{"type": "error", "error": {...}}``), on which the SDK raises ``APIError``.
Either way the events after k are never delivered.
"""

from __future__ import annotations

from durable_harness.harness.faults._base import Action, Cut, FaultContext
from durable_harness.harness.faults._registry import fault_kind
from durable_harness.harness.faults._request_fault import RequestFault


@fault_kind("drop_stream")
class DropStream(RequestFault):
    point = "stream"
    params_schema = {"after_events": {"type": "integer", "minimum": 0, "default": 1},
                     "mode": {"enum": ["eof", "reset", "error"], "default": "reset"}}

    def action(self, ctx: FaultContext) -> Action:
        return Cut(after_events=int(self.param("after_events")), mode=str(self.param("mode")))


@fault_kind("stream_error")
class StreamError(RequestFault):
    """``stream_error``: the API ends an SSE stream after event k with an ``error`` event of its own
    (``{"type": "error", "error": {"type": "server_error", "code": "stream_failed", ...}}``), as it
    does when the stream fails on its side; the SDK raises ``openai.APIError`` with its message (not
    a connection error: a control plane that catches only those crashes). The session is fine."""

    point = "stream"
    params_schema = {"after_events": {"type": "integer", "minimum": 0, "default": 1}}

    def action(self, ctx: FaultContext) -> Action:
        return Cut(after_events=int(self.param("after_events")), mode="error")
