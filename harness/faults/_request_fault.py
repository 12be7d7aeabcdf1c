"""The shared machinery of faults that fire on a request at the gate.

A concrete kind sets ``point`` (``before`` or ``after``) and implements ``action``. This class
counts matches of the trigger, decides whether this request is one of the firings, and records the
evidence the gate hands back (was the request committed? what status did the fake give?).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from harness.faults._base import Action, FaultContext, FaultState, Trigger

__all__ = ["RequestFault"]


class RequestFault:
    kind: ClassVar[str] = "?"
    point: ClassVar[str] = "before"

    def __init__(self, index: int, trigger: Trigger, params: Mapping[str, Any]) -> None:
        self.index = index
        self.trigger = trigger
        self.params = dict(params)
        self.state = FaultState()
        self._pattern = trigger.pattern()
        self._firing_op: int | None = None

    # The gate calls ``observe`` once per request (before delivery), then ``before`` and ``after``.
    def observe(self, ctx: FaultContext) -> None:
        t = self.trigger
        if (t.service not in ("*", ctx.service) or t.method not in ("*", ctx.request.method)
                or not self._pattern.match(ctx.route)):
            return
        self.state.seen += 1
        first, last = self.trigger.nth, self.trigger.nth + self.trigger.times - 1
        if first <= self.state.seen <= last:
            self._firing_op = ctx.op

    def before(self, ctx: FaultContext) -> Action | None:
        if self.point != "before" or self._firing_op != ctx.op:
            return None
        return self._fire(ctx)

    def after(self, ctx: FaultContext) -> Action | None:
        if self.point != "after" or self._firing_op != ctx.op:
            return None
        return self._fire(ctx)

    def stream(self, ctx: FaultContext) -> Action | None:
        if self.point != "stream" or self._firing_op != ctx.op:
            return None
        return self._fire(ctx)

    def _fire(self, ctx: FaultContext) -> Action:
        self._firing_op = None  # the gate records the evidence (and so the firing) if it takes effect
        return self.action(ctx)

    def action(self, ctx: FaultContext) -> Action:
        raise NotImplementedError

    @property
    def scheduled(self) -> int:
        return self.trigger.times

    def describe(self) -> dict[str, Any]:
        return {"index": self.index, "kind": self.kind, "at": self.trigger.describe(),
                "point": self.point, "params": self.params}
