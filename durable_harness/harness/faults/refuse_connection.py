"""``refuse_connection``: the service is down; the connection is refused before anything is sent.

Unlike ``http_error`` nothing answers at all, and unlike ``lose_response`` the request provably
never left: a candidate may retry at once (and should back off).
"""

from __future__ import annotations

from durable_harness.harness.faults._base import Action, Drop, FaultContext
from durable_harness.harness.faults._registry import fault_kind
from durable_harness.harness.faults._request_fault import RequestFault


@fault_kind("refuse_connection")
class RefuseConnection(RequestFault):
    point = "before"

    def action(self, ctx: FaultContext) -> Action:
        return Drop("connect")
