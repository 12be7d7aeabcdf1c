"""What people do during a run: the user, the reviewer and the operator, scheduled by a scenario.

A scenario's ``actions`` sit beside its ``faults`` in the nemesis's plan and share their
machinery: an action is a plan entry with a trigger, fired at most once, counted only by its
evidence, and reported fired / not exercised / unfired as a fault is (an action that never fires
makes the run unknown: it did not test what it says). Three triggers:

* ``at``: a request trigger, as a fault has (service, method, route, nth, ``while``), with
  ``point: before`` (before the request is delivered) or ``after`` (it reached the service and its
  response has not been delivered yet: "while the operation is in flight");
* ``when``: a condition of the world (``article_finished``, ``tool_call_pending:wp_create_draft``),
  checked at every step and before every request; ``delay_s`` later (a reviewer takes time);
* ``at_s``: a virtual time.

Each kind performs itself on an ``ActionContext`` (the World seen by people: its services, the
job, the candidate's driver) and returns its evidence, or None when there was nothing to act on
(then it has not fired). It records under its actor's name in the history (``reviewer``, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Protocol

from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._history import History
from durable_harness.harness._registry import Registry
from durable_harness.harness.faults import Action, Effect, FaultContext, RequestFault, Trigger

__all__ = ["ACTORS", "ActionContext", "ScenarioAction", "action_kind", "action_kinds", "get_action_kind"]

ACTORS = ("user", "reviewer", "operator")
_NO_CHANNEL = Trigger("-", "-", "/-never-")  # world-triggered actions match no request


class ActionContext(Protocol):
    """The World as the people acting in it see it."""

    clock: VirtualClock
    history: History
    job: dict[str, Any]
    services: Mapping[str, Any]
    workload: Any

    def truth(self) -> dict[str, Any]: ...
    def candidate(self) -> Any: ...  # the Driver of the running candidate (None before it starts)
    def set_job(self, job: dict[str, Any]) -> None: ...
    def new_version(self, change: Mapping[str, Any]) -> dict[str, Any]: ...
    def request_deploy(self) -> dict[str, Any] | None: ...  # the next version, at the run loop's next turn


class ScenarioAction(RequestFault):
    actor: ClassVar[str] = "user"
    # What must have happened for this action to have anything to act on, as scenario entries (an
    # approval to revoke): ``explore`` adds them to a plan that draws this action alone.
    requires: ClassVar[tuple[Mapping[str, Any], ...]] = ()

    def __init__(self, index: int, trigger: Trigger | None, params: Mapping[str, Any], *,
                 when: str | None = None, delay_s: float = 0.0, at_s: float | None = None) -> None:
        super().__init__(index, trigger or _NO_CHANNEL, params)
        self.point = str(self.params.pop("point", "before")) if trigger is not None else "world"  # type: ignore[misc]
        self.when = when
        self.delay_s = float(delay_s)
        self.at_s = at_s
        self.scheduled_at: float | None = None  # when a ``when`` action's delay started

    @property
    def request_triggered(self) -> bool:
        return self.when is None and self.at_s is None

    def action(self, ctx: FaultContext) -> Action:
        return Effect(self.kind, self.params)

    def perform(self, world: ActionContext) -> dict[str, Any] | None:
        raise NotImplementedError

    @property
    def status(self) -> str:
        if self.request_triggered:
            return super().status
        if self.state.fired >= self.scheduled:
            return "fired"
        # The world never came to its moment (the condition never held, the run ended before its
        # time): coverage. It came and there was nothing to act on: unknown.
        return "unfired" if self.state.missed else "not_reached"

    def reach(self) -> str:
        if self.request_triggered or self.status == "fired":
            return super().reach()
        if self.state.missed:
            return "its moment came and it found nothing to act on, so the run proves nothing about it"
        if self.at_s is not None:
            return f"the run ended its chaos before t={self.at_s:g}s"
        return f"the world never came to {self.when!r} in this run"

    def describe(self) -> dict[str, Any]:
        if self.at_s is not None:
            at = f"at t={self.at_s:g}s"
        elif self.when is not None:
            at = f"when {self.when}" + (f" (+{self.delay_s:g}s)" if self.delay_s else "")
        else:
            at = self.trigger.describe()
        return {"index": self.index, "kind": self.kind, "at": f"{self.actor}: {at}", "point": self.point,
                "params": self.params}

    def to_json(self) -> dict[str, Any]:
        doc = super().to_json()
        if not self.request_triggered:
            doc["channel"] = "the world" if self.at_s is None else "the clock"
        return doc


_KINDS: Registry[type[ScenarioAction]] = Registry("action kind")


def action_kind(name: str, actor: str) -> Callable[[type[ScenarioAction]], type[ScenarioAction]]:
    if actor not in ACTORS:
        raise ValueError(f"action kind {name!r}: actor {actor!r} must be one of {ACTORS}")

    def register(cls: type[ScenarioAction]) -> type[ScenarioAction]:
        _KINDS.add(name, cls, cls.__module__)
        cls.kind = name
        cls.actor = actor
        return cls
    return register


def action_kinds() -> list[str]:
    return _KINDS.names()


def get_action_kind(name: str) -> type[ScenarioAction]:
    return _KINDS.get(name)
