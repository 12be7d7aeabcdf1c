"""``http_error``: an error status before the write (429 / 500 / 502 / 503 with Retry-After / 524).

Nothing is committed; the body looks like what a host or proxy in front of the service sends.
"""

from __future__ import annotations

import json

from fakes import Response
from harness.faults._base import Action, FaultContext, Respond
from harness.faults._registry import fault_kind
from harness.faults._request_fault import RequestFault


@fault_kind("http_error")
class HttpError(RequestFault):
    point = "before"

    def action(self, ctx: FaultContext) -> Action:
        status = int(self.params.get("status", 503))
        headers = {"content-type": "application/json"}
        retry_after = self.params.get("retry_after_s")
        if retry_after is not None:
            headers["retry-after"] = str(int(retry_after))
        body = {"code": "harness_http_error", "message": f"Injected HTTP {status}", "data": {"status": status}}
        if ctx.service == "openai":
            body = {"error": {"message": f"Injected HTTP {status}", "type": "server_error", "code": None, "param": None}}
        return Respond(Response(status=status, headers=headers, body=json.dumps(body).encode()))
