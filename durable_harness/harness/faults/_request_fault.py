"""The shared machinery of faults that fire on a request at the gate.

A concrete kind sets ``point`` (``before``, ``after`` or ``stream``), declares its parameters once
in ``params_schema`` (JSON Schema properties; the scenario schema is composed from them) and
implements ``action``. This class counts the requests on the fault's channel and the matches of
its trigger, decides whether this request is one of the firings, and derives the fault's status
from the evidence the gate records (was the request committed? what did the fake answer?).

A fault fires on the matches of its trigger from the ``nth`` on, until it has fired ``times``
times: a match it could not act on (no evidence) leaves it armed for the next one. An ``action``
that returns ``Skip`` says the request was no chance for it (it only watched it).

Status, for reports and the ``faults_fired`` checker:

* ``fired``: it took effect as often as scheduled;
* ``not_exercised``: the candidate never used the fault's channel (a control plane that polls
  never opens the event stream). Coverage, not a failure: the run says it was not tested;
* ``not_reached``: the candidate used the channel but never made (again) the request the fault
  waits for: it reconciled by reading instead of sending the update again, it made no request
  while the condition held, or the run ended its chaos first. Its design took another way, which
  the contract allows: coverage, shown as such, not a failure (``--strict-coverage`` makes it one).
  Whether the job still got done is the liveness checkers' to say;
* ``unfired``: the candidate made the request the fault waits for and the fault found nothing to
  act on (a lag that hid nothing, a sandbox already gone), or a point that must be reached was not
  (``reach_required``: an in-process sweep's crash point, whose run up to the crash is the clean
  run). The run proves nothing about it: unknown, which fails closed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from durable_harness.harness.faults._base import Action, FaultContext, FaultState, Skip, Trigger

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
    # The services whose fake it needs (it calls into the fake, not just the gate): a scenario with it is
    # not applicable where such a service is real (``--service``). Every built-in kind acts at the gate.
    needs_fake: ClassVar[tuple[str, ...]] = ()

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
        self.reach_required = False  # see ``FaultSpec.reach_required``; the world sets it

    # The gate calls ``observe`` once per request (before delivery), then ``before`` and ``after``.
    def observe(self, ctx: FaultContext) -> None:
        t = self.trigger
        if t.service in ("*", ctx.service) and self.state.seen and self.state.next_after_last is None:
            self.state.next_after_last = f"{ctx.request.method} {ctx.route}"  # (reset by a match)
        if (t.service not in ("*", ctx.service) or t.method not in ("*", ctx.request.method)
                or not self._pattern.match(ctx.route)):
            return
        if t.target is not None:
            does = ctx.does()
            if t.verb not in does:
                return
            self.state.channel_seen += 1
            if t.target not in does:
                return
        else:
            self.state.channel_seen += 1
        if t.condition is not None and not ctx.condition(t.condition):
            return
        self.state.seen += 1
        self.state.last_seen_op = ctx.op
        self.state.next_after_last = None
        if t.nth <= self.state.seen and (t.times is None or self.state.fired < t.times):
            self._firing_op = ctx.op

    def before(self, ctx: FaultContext) -> Action | None:
        return self._fire(ctx) if self.point == "before" and self._firing_op == ctx.op else None

    def after(self, ctx: FaultContext) -> Action | None:
        return self._fire(ctx) if self.point == "after" and self._firing_op == ctx.op else None

    def stream(self, ctx: FaultContext) -> Action | None:
        return self._fire(ctx) if self.point == "stream" and self._firing_op == ctx.op else None

    def _fire(self, ctx: FaultContext) -> Action | None:
        self._firing_op = None  # the gate records the evidence (and so the firing) if it takes effect
        action = self.action(ctx)
        if isinstance(action, Skip):  # no chance for it: not counted against it
            return None
        self.state.asked.append(ctx.op)
        return action

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
        if self.state.missed or self.reach_required:
            return "unfired"
        return "not_reached"

    def reach(self) -> str:
        """Why a fault that did not fire as scheduled did not, in one line (empty once fired)."""
        st, t = self.state, self.trigger
        status = self.status
        if status == "fired":
            return ""
        what = f"requests that are {t.target}" if t.target is not None else f"requests on its channel ({t.channel()})"
        count = f"{st.seen} in all"
        when = f" while {t.condition} held" if t.condition else ""
        if status == "not_exercised":
            return f"the candidate never used the fault's channel ({t.channel()}): its design does without it"
        if status == "unfired" and st.missed:
            return (f"it met {st.missed} of the candidate's {what}{when} and found nothing to act on each time, "
                    f"so the run proves nothing about it")
        if status == "unfired":
            return f"after {st.seen} {what}{when}: this point had to be reached, and was not"
        if st.seen == 0:
            return (f"none of the candidate's {st.channel_seen} requests on its channel ({self.trigger.channel()}) "
                    f"{'came' + when if t.condition else 'matched'}")
        then = (f"; its next request to {t.service} was {st.next_after_last}" if st.next_after_last and t.service != "*"
                else "")
        if st.fired:
            return f"fired {st.fired} of {self.scheduled}: after that the candidate made no more {what}{when} ({count}){then}"
        return f"the fault waited for #{t.nth} of the candidate's {what}{when}, and it made no more ({count}){then}"

    def describe(self) -> dict[str, Any]:
        return {"index": self.index, "kind": self.kind, "at": self.trigger.describe(),
                "point": self.point, "params": self.params}

    def to_json(self) -> dict[str, Any]:
        """The fault as run.json records it: what it was, and what it did."""
        doc = {**self.describe(), "channel": self.trigger.channel(), "scheduled": self.scheduled,
               "fired": self.state.fired, "seen": self.state.channel_seen, "matched": self.state.seen,
               "status": self.status, "evidence": [dict(e) for e in self.state.evidence]}
        reach = self.reach()
        if reach:
            doc["reach"] = reach
        return doc
