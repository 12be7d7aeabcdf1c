"""``http_error``: an error status before the write (403 / 406 from a firewall, 408, 429, 5xx).

Nothing is committed. The body is what the service (or the host in front of it) sends with such
a status: each service supplies its own shape, so a WordPress 503 looks like WordPress's errors and
a sessions API 429 like the SDK's. ``should_retry`` adds the sessions API's ``x-should-retry``
header: the SDK retries a status it would not (a 403 with ``true``) and gives up on one it would
(a 503 with ``false``).
"""

from __future__ import annotations

import json

from durable_harness.wire import Response
from durable_harness.harness.faults._base import Action, FaultContext, Respond
from durable_harness.harness.faults._registry import fault_kind
from durable_harness.harness.faults._request_fault import RequestFault


@fault_kind("http_error")
class HttpError(RequestFault):
    point = "before"
    params_schema = {
        "status": {"enum": [403, 406, 408, 429, 500, 502, 503, 504, 520, 522, 524], "default": 503},
        "retry_after_s": {"type": "integer", "minimum": 0, "maximum": 3600},
        "should_retry": {"type": "boolean", "description": "an x-should-retry header (the sessions API's): the "
                         "SDK retries when true and gives up when false, whatever the status says"},
    }

    def action(self, ctx: FaultContext) -> Action:
        status = int(self.param("status"))
        headers = {"content-type": "application/json"}
        retry_after = self.params.get("retry_after_s")
        if retry_after is not None:
            headers["retry-after"] = str(int(retry_after))
        if self.params.get("should_retry") is not None:
            headers["x-should-retry"] = "true" if self.params["should_retry"] else "false"
        if ctx.error_response is not None:
            return Respond(ctx.error_response(status, headers))
        body = {"code": "http_error", "message": f"HTTP {status}", "data": {"status": status}}
        return Respond(Response(status=status, headers=headers, body=json.dumps(body).encode()))
