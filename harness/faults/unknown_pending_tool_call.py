"""``unknown_pending_tool_call``: the sessions API's known race. A valid tool result is refused
with 400 ``Unknown pending tool call: <call_id>`` before it is delivered (nothing is committed).

The SDK's own dispatcher retries after 0.1, 0.3 and 0.6 s with the same Idempotency-Key; a
control plane must likewise re-read the session and retry, not drop the result.
"""

from __future__ import annotations

import json

from fakes import Response
from harness.faults._base import Action, FaultContext, Respond
from harness.faults._registry import fault_kind
from harness.faults._request_fault import RequestFault


@fault_kind("unknown_pending_tool_call")
class UnknownPendingToolCall(RequestFault):
    point = "before"

    def action(self, ctx: FaultContext) -> Action:
        call_id = "unknown"
        try:
            body = json.loads(ctx.request.body or b"{}")
            call_id = next(e["call_id"] for e in body.get("events", []) if e.get("type") == "agent.session.input.tool_result")
        except (ValueError, StopIteration, KeyError, AttributeError):
            pass
        error = {"error": {"message": f"Unknown pending tool call: {call_id}", "type": "invalid_request_error",
                           "code": "invalid_request_error", "param": None}}
        return Respond(Response(status=400, headers={"content-type": "application/json"}, body=json.dumps(error).encode()))
