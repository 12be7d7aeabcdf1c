"""The shared machinery of faults that fire on a request at the gate.

A concrete kind sets ``point`` (``before``, ``after`` or ``stream``), declares its parameters once
in ``params_schema`` (JSON Schema properties; the scenario schema is composed from them) and
implements ``action``. This class counts the requests on the fault's channel and the matches of
its trigger, decides whether this request is one of the firings, and derives the fault's status
from the evidence the gate records (was the request committed? what did the fake answer?).

Status, for reports and the ``faults_fired`` checker:

* ``fired``: it took effect as often as scheduled;
* ``not_exercised``: the candidate never used the fault's channel (a control plane that polls
  never opens the event stream). Coverage, not a failure: the run says it was not tested;
* ``not_reached``: a fault allowed to lie past the run's end (``past_end_ok``: a sweep's crash point
  run in real time) whose run ended its chaos before the trigger's n-th request. Coverage too: that
  run was a clean run of the candidate, judged as one, and the point was not tested in it;
* ``unfired``: the channel was used but the trigger was never reached, or the fault found nothing
  to act on. The run proves nothing about it: unknown, which fails closed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from durable_harness.harness.faults._base import Action, FaultContext, FaultState, Trigger

__all__ = ["FAULT_STATUSES", "RequestFault"]

FAULT_STATUSES = ("fired", "not_exercised", "not_reached", "unfired")


class RequestFault:
    kind: ClassVar[str] = "?"
    point: ClassVar[str] = "before"
    params_schema: ClassVar[Mapping[str, Any]] = {}  # JSON Schema of each parameter, by name
    services: ClassVar[tuple[str, ...] | None] = None  # the trigger services it may name (None: any)
    workloads: ClassVar[tuple[str, ...] | None] = None  # the workloads it can act in (None: any)
    min_workers: ClassVar[int] = 1  # the workers a scenario must run for it to apply
    drivers: ClassVar[tuple[str, ...] | None] = None  # the drivers that can run it ("process", "python"; None: any)
    required_params: ClassVar[tuple[str, ...]] = ()  # parameters a scenario must give
    network: ClassVar[bool] = False  # acts on the network between a candidate process and the services

    @classmethod
    def param_problem(cls, params: Mapping[str, Any]) -> tuple[str, str] | None:
        """What the schema cannot say is wrong with a fault's parameters: (field, why), or None."""
        return None

    @classmethod
    def scenario_problem(cls, fault: Mapping[str, Any], scenario: Mapping[str, Any]) -> tuple[str, str] | None:
        """What is wrong with the fault in this scenario's world (a world no correct candidate could
        pass): (field, why), or None."""
        return None

    def __init__(self, index: int, trigger: Trigger, params: Mapping[str, Any]) -> None:
        self.index = index
        self.trigger = trigger
        self.params = dict(params)
        self.state = FaultState()
        self._pattern = trigger.pattern()
        self._firing_op: int | None = None
        self.past_end_ok = False  # see ``FaultSpec.past_end_ok``; the world sets it

    # The gate calls ``observe`` once per request (before delivery), then ``before`` and ``after``.
    def observe(self, ctx: FaultContext) -> None:
        t = self.trigger
        if (t.service not in ("*", ctx.service) or t.method not in ("*", ctx.request.method)
                or not self._pattern.match(ctx.route)):
            return
        self.state.channel_seen += 1
        if t.condition is not None and not ctx.condition(t.condition):
            return
        self.state.seen += 1
        if t.nth <= self.state.seen and (t.times is None or self.state.seen < t.nth + t.times):
            self._firing_op = ctx.op

    def before(self, ctx: FaultContext) -> Action | None:
        return self._fire(ctx) if self.point == "before" and self._firing_op == ctx.op else None

    def after(self, ctx: FaultContext) -> Action | None:
        return self._fire(ctx) if self.point == "after" and self._firing_op == ctx.op else None

    def stream(self, ctx: FaultContext) -> Action | None:
        return self._fire(ctx) if self.point == "stream" and self._firing_op == ctx.op else None

    def _fire(self, ctx: FaultContext) -> Action | None:
        self._firing_op = None  # the gate records the evidence (and so the firing) if it takes effect
        return self.action(ctx)

    def action(self, ctx: FaultContext) -> Action | None:
        """What to do to this request; None when there is nothing to act on (then it has not fired)."""
        raise NotImplementedError

    def param(self, name: str) -> Any:
        """A parameter as given, or its declared default."""
        if name in self.params:
            return self.params[name]
        return self.params_schema.get(name, {}).get("default")

    @property
    def scheduled(self) -> int:
        """Firings required for the fault to count as fired (``times: all`` needs one)."""
        return 1 if self.trigger.times is None else self.trigger.times

    @property
    def status(self) -> str:
        if self.state.fired >= self.scheduled:
            return "fired"
        if self.state.channel_seen == 0:
            return "not_exercised"
        return "not_reached" if self.past_end_ok and self.state.seen < self.trigger.nth else "unfired"

    def describe(self) -> dict[str, Any]:
        return {"index": self.index, "kind": self.kind, "at": self.trigger.describe(),
                "point": self.point, "params": self.params}

    def to_json(self) -> dict[str, Any]:
        """The fault as run.json records it: what it was, and what it did."""
        return {**self.describe(), "channel": self.trigger.channel(), "scheduled": self.scheduled,
                "fired": self.state.fired, "seen": self.state.channel_seen, "status": self.status,
                "evidence": [dict(e) for e in self.state.evidence]}
