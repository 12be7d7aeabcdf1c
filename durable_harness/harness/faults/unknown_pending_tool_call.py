"""``unknown_pending_tool_call``: the sessions API's known race. A valid tool result is refused
with 400 ``Unknown pending tool call: <call_id>`` before it is delivered (nothing is committed).
Only a request that carries a tool result meets it (``agent.session.input.tool_result`` in
``POST /agents/sessions/{id}/events``); any other request the trigger matches is left alone.

The SDK's own dispatcher retries after 0.1, 0.3 and 0.6 s with the same Idempotency-Key; a
control plane must likewise re-read the session and retry, not drop the result.
"""

from __future__ import annotations

import json

from durable_harness.wire import Response
from durable_harness.harness.faults._base import Action, FaultContext, Respond
from durable_harness.harness.faults._registry import fault_kind
from durable_harness.harness.faults._request_fault import RequestFault


@fault_kind("unknown_pending_tool_call")
class UnknownPendingToolCall(RequestFault):
    point = "before"
    services = ("openai",)

    def action(self, ctx: FaultContext) -> Action | None:
        """Only a tool result can meet this race: any other request is left alone (not fired)."""
        try:
            body = json.loads(ctx.request.body or b"{}")
            call_id = next(e["call_id"] for e in body.get("events", []) if e.get("type") == "agent.session.input.tool_result")
        except (ValueError, StopIteration, KeyError, AttributeError, TypeError):
            return None
        error = {"error": {"message": f"Unknown pending tool call: {call_id}", "type": "invalid_request_error",
                           "code": "invalid_request_error", "param": None}}
        return Respond(Response(status=400, headers={"content-type": "application/json"}, body=json.dumps(error).encode()))
