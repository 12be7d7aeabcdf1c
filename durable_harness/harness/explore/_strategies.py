"""Hypothesis strategies for fault plans, built from the registries and from what a clean run did.

A plan is a short list of entries: faults (every registered kind, or those asked for) and people's
actions, each with a trigger on a channel the candidate really used in a clean run of the workload
(its service, method and route, ``nth`` within the number of times it was used) and with
parameters drawn from the kind's own declaration (``params_schema``). So every plan is one a
scenario file could state, and most of them fire.

What it deliberately does not do: run anything (``_explorer`` does) or judge (checkers do).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from durable_harness.harness.actions import action_kinds, get_action_kind
from durable_harness.harness.faults import Trigger, fault_kinds, get_fault_kind

__all__ = ["Channel", "PlanEntry", "plans", "strategy_for"]

_STREAM_KINDS = ("drop_stream", "duplicate_events")


@dataclass(frozen=True)
class Channel:
    """A (service, method, route) the candidate used, and how many times, in the clean run."""

    service: str
    method: str
    route: str
    count: int
    streamed: bool = False


@dataclass(frozen=True)
class PlanEntry:
    kind: str
    action: bool  # a person's action rather than a fault
    at: Trigger | None
    when: str | None
    params: Mapping[str, Any]

    def to_yaml(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.at is not None:
            at: dict[str, Any] = {"service": self.at.service, "method": self.at.method, "route": self.at.route,
                                  "nth": self.at.nth}
            if self.at.times != 1:
                at["times"] = "all" if self.at.times is None else self.at.times
            out["at"] = at
        if self.when is not None:
            out["when"] = self.when
        out.update(self.params)
        return out


def strategy_for(rule: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """A strategy for one parameter from its JSON Schema (the subset fault and action kinds use)."""
    if "enum" in rule:
        return st.sampled_from(list(rule["enum"]))
    kind = rule.get("type")
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        low = int(rule.get("minimum", 0))
        return st.integers(low, min(int(rule.get("maximum", low + 10)), low + 10))
    if kind == "number":
        floor = float(rule.get("minimum", rule.get("exclusiveMinimum", 0)))
        return st.sampled_from(sorted({max(floor, v) for v in (1.0, 5.0, 30.0, 60.0)}))
    if kind == "array":
        return st.lists(strategy_for(rule.get("items", {})), min_size=int(rule.get("minItems", 0)), max_size=3, unique=True)
    if kind == "string":
        return st.just(str(rule.get("default", "x")))
    return st.nothing()


def _params(schema: Mapping[str, Mapping[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Each declared parameter either left to its default or drawn from its rule."""
    parts = {name: st.one_of(st.none(), strategy_for(rule)) for name, rule in sorted(schema.items())}
    return st.fixed_dictionaries(parts).map(lambda d: {k: v for k, v in d.items() if v is not None})


def _trigger(channels: Sequence[Channel]) -> st.SearchStrategy[Trigger]:
    return st.sampled_from(list(channels)).flatmap(lambda c: st.builds(
        Trigger, st.just(c.service), st.just(c.method), st.just(c.route),
        st.integers(1, max(1, c.count)), st.sampled_from([1, 1, 2, 3])))


def _fault(kind: str, channels: Sequence[Channel], workload: str) -> st.SearchStrategy[PlanEntry] | None:
    cls = get_fault_kind(kind)
    if cls.workloads is not None and workload not in cls.workloads:
        return None
    if cls.min_workers > 1:  # the exploration's base scenario has one worker
        return None
    if cls.drivers is not None and "python" not in cls.drivers:  # exploration runs Python candidates
        return None
    usable = [c for c in channels if (c.service == "webhooks") == (cls.services == ("webhooks",))
              and (cls.services is None or c.service in cls.services)]
    if kind in _STREAM_KINDS:
        usable = [c for c in usable if c.streamed]
    if not usable:
        return None
    return st.builds(PlanEntry, st.just(kind), st.just(False), _trigger(usable), st.none(),
                     _params(cls.params_schema))


def _action(kind: str, channels: Sequence[Channel], conditions: Sequence[str]) -> st.SearchStrategy[PlanEntry]:
    cls = get_action_kind(kind)
    params = _params(cls.params_schema)
    by_request = st.builds(PlanEntry, st.just(kind), st.just(True), _trigger([c for c in channels if c.service != "webhooks"]),
                           st.none(), st.tuples(params, st.sampled_from(["before", "after"])).map(
                               lambda pp: {**pp[0], "point": pp[1]}))
    if not conditions:
        return by_request
    by_condition = st.builds(PlanEntry, st.just(kind), st.just(True), st.none(), st.sampled_from(list(conditions)), params)
    return st.one_of(by_request, by_condition)


def plans(channels: Sequence[Channel], conditions: Sequence[str], workload: str, *, kinds: Sequence[str] | None = None,
          actions: bool = True, max_entries: int = 3) -> st.SearchStrategy[list[PlanEntry]]:
    """Plans of 1 to ``max_entries`` entries over the given channels."""
    wanted = [k for k in (kinds or fault_kinds()) if k in fault_kinds()]
    options = [s for s in (_fault(k, channels, workload) for k in wanted) if s is not None]
    if actions:
        options += [_action(k, channels, conditions) for k in action_kinds() if kinds is None or k in kinds]
    if not options:
        raise ValueError("no fault kind can act on the channels this candidate used")
    return st.lists(st.one_of(options), min_size=1, max_size=max_entries)
