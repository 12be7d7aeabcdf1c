"""The approval authority service: publish approvals, read-only for the candidate.

Conditions triggers may name: ``approval_granted`` (an approval for the job is active now). The
reviewer's actions (``approve``, ``revoke_approval``, ``expire_approval``) act on its state
directly, never through the gate. An injected error has the authority's own error shape.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from durable_harness.harness._seeds import component_random
from durable_harness.harness.services._registry import BuiltService, ServiceContext, ServiceSpec, register_service
from durable_harness.wire import Response

__all__ = ["HOST", "SPEC"]

HOST = "approvals.dh.test"


def _error_response(status: int, headers: Mapping[str, str]) -> Response:
    body = {"error": {"type": "server_error" if status >= 500 else "request_error", "code": f"http_{status}",
                      "message": f"The server answered HTTP {status}.", "param": None}}
    return Response(status=status, headers={**headers, "content-type": "application/json"}, body=json.dumps(body).encode())


def _build(ctx: ServiceContext) -> BuiltService:
    from durable_harness.fakes.approvals import ApprovalsFake  # imported when a run builds it, not by list/validate
    from durable_harness.harness.candidate import ServiceEndpoint

    rng = component_random(ctx.seed, "world.secrets.approvals")
    token = "apr-" + "".join(rng.choice("0123456789abcdef") for _ in range(32))
    fake = ApprovalsFake(ctx.clock, token=token, host=HOST)
    url = f"http://{HOST}/v1"
    endpoint = ServiceEndpoint(url=url, credentials={"token": token},
                               variables={"APPROVALS_URL": url, "APPROVALS_TOKEN": token})

    def granted(job_arg: str | None) -> bool:
        return any(a.status_at(ctx.clock.now()) == "active" for a in fake.state.select())

    return BuiltService(fake=fake, endpoint=endpoint, secrets=(token,), error_response=_error_response,
                        conditions={"approval_granted": granted})


SPEC = register_service(ServiceSpec(
    name="approvals", build=_build,
    conditions={"approval_granted": "a publish approval is in force now"},
))
