"""``lose_response``: the fake commits the write, the response never arrives (timeout or reset).

The most dangerous fault of the catalogue: the candidate holds an operation whose outcome it
cannot know. A timeout costs ``wait_s`` of virtual time (the client's read timeout).
"""

from __future__ import annotations

from durable_harness.harness.faults._base import Action, FaultContext, Lose
from durable_harness.harness.faults._registry import fault_kind
from durable_harness.harness.faults._request_fault import RequestFault


@fault_kind("lose_response")
class LoseResponse(RequestFault):
    point = "after"
    params_schema = {"mode": {"enum": ["timeout", "reset"], "default": "timeout"},
                     "wait_s": {"type": "number", "minimum": 0, "maximum": 3600, "default": 30.0}}

    def action(self, ctx: FaultContext) -> Action:
        return Lose(kind=str(self.param("mode")), wait_s=float(self.param("wait_s")))
