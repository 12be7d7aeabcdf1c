"""``lose_response``: the fake commits the write, the response never arrives (timeout or reset).

The most dangerous fault of the catalogue: the candidate holds an operation whose outcome it
cannot know. A timeout costs ``wait_s`` of virtual time (the client's read timeout).
"""

from __future__ import annotations

from harness.faults._base import Action, FaultContext, Lose
from harness.faults._registry import fault_kind
from harness.faults._request_fault import RequestFault


@fault_kind("lose_response")
class LoseResponse(RequestFault):
    point = "after"

    def action(self, ctx: FaultContext) -> Action:
        return Lose(kind=str(self.params.get("mode", "timeout")), wait_s=float(self.params.get("wait_s", 30.0)))
