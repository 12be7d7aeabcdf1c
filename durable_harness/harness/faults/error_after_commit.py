"""``error_after_commit``: the service applied the request, then the client gets a 5xx or a reset.

What a control plane meets behind a proxy or a PHP host: the write committed, and then a gateway
gave up waiting (502, 504), a plugin hook died after the insert (500), or the host went into
maintenance (503) — or the connection was reset. The client holds an error that proves nothing:
the write may well have happened, and taking the error as "not applied" creates the object again.

Parameters: ``status`` (500, 502, 503 or 504; default 502) and ``mode`` (``status``, the default,
or ``reset``: the connection dies instead, with no status at all). ``source`` says who answers:
``proxy`` (an nginx HTML error page, as a reverse proxy or load balancer sends it; the default
for 502 and 504) or ``service`` (the service's own JSON error shape, as each service supplies it:
WordPress's critical-error body, the sessions API's ``server_error``; the default for 500 and
503). ``retry_after_s`` adds a ``Retry-After`` header, ``should_retry`` an ``x-should-retry``
header (the sessions API's own, which the SDK obeys over its status rules).

It works for any service: the body comes from the service's ``error_response`` or from the proxy
page, never from knowledge of one service. It deliberately does not decide whether the request
committed (the gate records that as evidence: a fault on a read still fires, and says so).
"""

from __future__ import annotations

from collections.abc import Mapping

from durable_harness.wire import Response
from durable_harness.harness.faults._base import Action, FaultContext, Lose, Respond
from durable_harness.harness.faults._registry import fault_kind
from durable_harness.harness.faults._request_fault import RequestFault

__all__ = ["ErrorAfterCommit", "proxy_error_page"]

_REASONS = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Temporarily Unavailable",
            504: "Gateway Time-out"}
_PROXY_DEFAULT = (502, 504)


def proxy_error_page(status: int, headers: Mapping[str, str] | None = None) -> Response:
    """The page nginx sends for ``status`` when it answers instead of the service behind it."""
    reason = _REASONS.get(status, "Error")
    body = (f"<html>\r\n<head><title>{status} {reason}</title></head>\r\n<body>\r\n"
            f"<center><h1>{status} {reason}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
    return Response(status=status, headers={**(headers or {}), "content-type": "text/html", "server": "nginx"},
                    body=body.encode("ascii"))


@fault_kind("error_after_commit")
class ErrorAfterCommit(RequestFault):
    point = "after"
    params_schema = {
        "status": {"enum": [500, 502, 503, 504], "default": 502},
        "mode": {"enum": ["status", "reset"], "default": "status"},
        "source": {"enum": ["proxy", "service"]},
        "retry_after_s": {"type": "integer", "minimum": 0, "maximum": 3600},
        "should_retry": {"type": "boolean", "description": "an x-should-retry header (the sessions API's): the "
                         "SDK retries when true and gives up when false, whatever the status says"},
    }

    def action(self, ctx: FaultContext) -> Action:
        if self.param("mode") == "reset":
            return Lose(kind="reset", wait_s=0.0)
        status = int(self.param("status"))
        headers: dict[str, str] = {}
        retry_after = self.params.get("retry_after_s")
        if retry_after is not None:
            headers["retry-after"] = str(int(retry_after))
        if self.params.get("should_retry") is not None:
            headers["x-should-retry"] = "true" if self.params["should_retry"] else "false"
        source = self.params.get("source") or ("proxy" if status in _PROXY_DEFAULT else "service")
        if source == "service" and ctx.error_response is not None:
            return Respond(ctx.error_response(status, headers))
        return Respond(proxy_error_page(status, headers))
