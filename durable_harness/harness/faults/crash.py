"""``crash``: the candidate dies at an I/O point, before the request is delivered or after the
fake committed it (the response is never seen). The world restarts it on the same database."""

from __future__ import annotations

from durable_harness.harness.faults._base import Action, Crash, FaultContext
from durable_harness.harness.faults._registry import fault_kind
from durable_harness.harness.faults._request_fault import RequestFault


@fault_kind("crash")
class CrashAt(RequestFault):
    point = "before"
    params_schema = {"point": {"enum": ["before", "after"], "default": "before",
                               "description": "before delivery, or after the service committed"}}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.point = str(self.param("point"))  # type: ignore[misc]

    def action(self, ctx: FaultContext) -> Action:
        return Crash()
