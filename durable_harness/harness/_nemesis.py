"""The nemesis of one run: the plan (the scenario's faults and the people's actions), its evidence,
the world effects faults may ask for, and the heal.

The gate and the webhook delivery ask the nemesis which entries are armed and hand it every effect
a fault or an action asks for; the nemesis carries it out, records the firing (with its evidence)
in the entry's state and in the history: a fault under ``nemesis``, an action under its actor
(``user``, ``reviewer``, ``operator``). Actions triggered by the world rather than by a request
(``when:`` a condition, ``at_s:`` a time) are fired from ``tick()`` (every step and every request)
and from the clock. Conditions of the world that triggers may name are supplied by the services
and the workload and evaluated here.

Healing lifts the faults; people go on acting (a reviewer may approve during quiesce).

It deliberately does not decide how a fault acts on a request (the fault kinds do) nor deliver
requests (the gate does).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._errors import HarnessError
from durable_harness.harness._history import History
from durable_harness.harness.faults import Effect, RequestFault

__all__ = ["Condition", "Nemesis", "WorldEffect"]

Condition = Callable[[str | None], bool]  # the argument after ``:`` in ``tool_call_pending:NAME``
ARMED_GRACE_S = 60.0  # scenario seconds the chaos goes on after the world changed, while an entry is armed
WorldEffect = Callable[[Mapping[str, Any]], "dict[str, Any] | None"]


class Nemesis:
    def __init__(self, clock: VirtualClock, history: History, faults: Sequence[RequestFault] = (),
                 conditions: Mapping[str, Condition] | None = None, effects: Mapping[str, WorldEffect] | None = None,
                 actions: Sequence[Any] = ()) -> None:
        self._clock = clock
        self._history = history
        self.faults = list(faults)
        self.actions = list(actions)  # durable_harness.harness.actions.ScenarioAction entries
        self.conditions = dict(conditions or {})
        self.effects = dict(effects or {})
        self.world: Any = None  # the ActionContext actions perform on (set by the World)
        self.healed = False
        self.firings = 0  # every firing that took effect, fault or action: the run loops' "the world just changed"
        self.last_firing_s: float | None = None  # when the last of them took effect
        self.on_heal: list[Callable[[], None]] = []  # what else ends when the faults do (a network's toxics)

    @property
    def plan(self) -> list[RequestFault]:
        """Faults, then actions, in the order of their indices."""
        return [*self.faults, *self.actions]

    def armed(self) -> list[RequestFault]:
        """The entries that may still fire on a request: actions until fired, then faults until healed."""
        faults = [] if self.healed else self.faults
        # People act first: a cancel or a revocation at a request happens before the network misbehaves.
        return [*(a for a in self.actions if a.request_triggered and a.state.fired == 0), *faults]

    def heal(self) -> None:
        """Lift every fault: from now on requests and webhooks are delivered as they are."""
        self.healed = True
        for lift in self.on_heal:
            lift()

    def condition(self, name: str) -> bool:
        """Whether the world condition ``name`` (``name:arg``) holds right now."""
        base, _, arg = name.partition(":")
        check = self.conditions.get(base)
        if check is None:
            raise HarnessError(f"no service or workload of this world offers the condition {base!r}; "
                               f"known: {sorted(self.conditions)}")
        return check(arg or None)

    # -- effects and actions ---------------------------------------------------------------
    def apply(self, entry: RequestFault, effect: Effect, op: int | None, target: str) -> bool:
        """Carry out what ``entry`` asked for; True if it took effect (and was recorded)."""
        if hasattr(entry, "perform"):
            evidence = entry.perform(self.world)
        else:
            apply = self.effects.get(effect.name)
            if apply is None:
                raise HarnessError(f"fault {entry.kind!r} needs the world effect {effect.name!r}, which no service of "
                                   f"this world offers (known: {sorted(self.effects)})")
            evidence = apply(effect.params)
            if evidence is not None:
                evidence = {"effect": effect.name, **evidence}
        if evidence is None:  # nothing to act on: no evidence, so no firing
            return False
        self.record(entry, op, target, evidence)
        return True

    def schedule(self) -> None:
        """Put the time-triggered actions on the clock (once, when the world is built)."""
        for action in self.actions:
            if action.at_s is not None:
                self._clock.call_at(float(action.at_s), functools.partial(self._fire_world, action))

    def tick(self) -> None:
        """Fire the actions whose condition holds now (or start their delay)."""
        for action in self.actions:
            if action.when is None or action.state.fired or action.scheduled_at is not None:
                continue
            if not self.condition(action.when):
                continue
            action.scheduled_at = self._clock.now()
            if action.delay_s > 0:
                self._clock.call_later(action.delay_s, functools.partial(self._fire_world, action))
            else:
                self._fire_world(action)

    def _fire_world(self, action: Any) -> None:
        if action.state.fired == 0:
            action.state.asked.append(None)  # its moment came: a chance, taken or not
            self.apply(action, Effect(action.kind, action.params), None, "world")

    def waiting(self) -> bool:
        """Whether the chaos must go on: a world-triggered action has yet to fire, or the world changed
        less than ``ARMED_GRACE_S`` ago and an entry waiting for a request is still armed (a reviewer
        approved: a control plane that looks for approvals every ten seconds must get to publish
        while the fault on the publish is armed, not after the heal lifted it)."""
        if any(not a.request_triggered and a.state.fired == 0 for a in self.actions):
            return True
        if self.last_firing_s is None or self._clock.now() - self.last_firing_s >= ARMED_GRACE_S:
            return False
        return any(entry.state.fired < entry.scheduled for entry in self.armed())

    def record(self, entry: RequestFault, op: int | None, target: str, evidence: Mapping[str, Any]) -> None:
        """A firing took effect: keep its evidence (a firing counts only by its evidence)."""
        entry.state.evidence.append({"op": op, "at_s": round(self._clock.now(), 6), **evidence})
        self.firings += 1
        self.last_firing_s = self._clock.now()
        actor = getattr(entry, "actor", None)
        self._history.append(self._clock.now(), "action" if actor else "fault", actor or "nemesis",
                             {**entry.describe(), "op": op, "target": target, "evidence": dict(evidence)})

    def to_json(self) -> list[dict[str, Any]]:
        return [entry.to_json() for entry in self.plan]
