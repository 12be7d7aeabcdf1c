"""``maintenance_mode``: WordPress is being updated. While core or a plugin updates, WordPress puts a
``.maintenance`` file in place and answers every request with ``503``, ``Retry-After: 600`` and its
"Briefly unavailable for scheduled maintenance" page (``wp_maintenance()``), JSON routes included.
Nothing is committed. A control plane that takes it as a failure gives up on work that was due; one
that hammers the site ignores the ``Retry-After``."""

from __future__ import annotations

from durable_harness.harness.faults import Action, FaultContext, Respond, fault_kind
from durable_harness.harness.faults._request_fault import RequestFault
from durable_harness.wire import Response

PAGE = ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Maintenance</title></head><body>"
        "<h1>Briefly unavailable for scheduled maintenance. Check back in a minute.</h1></body></html>")


@fault_kind("maintenance_mode")
class MaintenanceMode(RequestFault):
    point = "before"
    services = ("wordpress",)
    params_schema = {"retry_after_s": {"type": "integer", "minimum": 0, "maximum": 3600, "default": 600}}

    def action(self, ctx: FaultContext) -> Action:
        headers = {"content-type": "text/html; charset=utf-8", "retry-after": str(int(self.param("retry_after_s")))}
        return Respond(Response(status=503, headers=headers, body=PAGE.encode()))
