"""Hypothesis strategies for plans, built from the registries, the catalogue and a clean run.

Two kinds of plan are drawn:

* **fresh**: one to ``max_entries`` faults and people's actions, each with a trigger on a channel the
  candidate really used in a clean run of the workload (its service, method and route, ``nth``
  within the number of times it was used) and parameters drawn from the kind's own declaration
  (``params_schema``), in a world drawn from the workload's and the services' declared options
  (``params_schema``, ``options_schema``) and one or two workers;
* **variations of the catalogue**: a scenario of the catalogue with one to three changes: an entry
  added (drawn as above), dropped, moved to another match of its channel (``nth``), repeated
  (``times``), crashed or acted on at the other side of its request (``point``), given another
  kind of request fault; or one world option set or dropped. The explorer never runs a plan the
  catalogue holds as written: those are what ``run`` is for.

So every plan is one a scenario file could state (the explorer builds it through the loader and
skips the rare one the schema refuses), and most of them fire.

What it deliberately does not do: run anything (``_explorer`` does) or judge (checkers do).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from durable_harness.harness.actions import action_kinds, get_action_kind
from durable_harness.harness.explore._plans import Plan
from durable_harness.harness.faults import Trigger, fault_kinds, get_fault_kind
from durable_harness.harness.services import services
from durable_harness.harness.workloads import get_workload

__all__ = ["Channel", "PlanEntry", "fresh_plans", "plans", "random_variation", "strategy_for", "usable_channels", "variations",
           "with_requirements", "world_changes"]

_STREAM_KINDS = ("drop_stream", "duplicate_events")
_INTERESTING_INTS = (0, 1, 2, 3, 10, 100, 101, 150)  # edges: a page of 100, one past it, a long session
_LARGEST_INT = 150  # beyond a page and a half, a count costs time and finds nothing a page and a half does not
_MAX_WORKERS = 2


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
    """A strategy for one value from its JSON Schema (the subset the registries declare with)."""
    if "enum" in rule:
        return st.sampled_from(list(rule["enum"]))
    kind = rule.get("type")
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.sampled_from(_integers(rule))
    if kind == "number":
        floor = float(rule.get("minimum", rule.get("exclusiveMinimum", 0)))
        ceiling = float(rule.get("maximum", 3600))
        return st.sampled_from(sorted({min(ceiling, max(floor, v)) for v in (1.0, 5.0, 30.0, 60.0)} - {0.0} or {ceiling}))
    if kind == "array":
        return st.lists(strategy_for(rule.get("items", {})), min_size=int(rule.get("minItems", 0)), max_size=3,
                        unique_by=lambda v: repr(v))
    if kind == "object":
        return _object(rule)
    if kind == "string":
        if "pattern" in rule:
            return st.from_regex(str(rule["pattern"]), fullmatch=True).filter(lambda s: len(s) <= 40)
        return st.just(str(rule.get("default", "x")))
    return st.nothing()


def _integers(rule: Mapping[str, Any]) -> list[int]:
    """The integers worth trying for ``rule``: its minimum, its maximum when small, and the edges between."""
    low = int(rule.get("minimum", 0))
    high = min(int(rule.get("maximum", low + 10)), max(low, _LARGEST_INT))
    return sorted({low, high, *(v for v in _INTERESTING_INTS if low <= v <= high)})


def _object(rule: Mapping[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    props = dict(rule.get("properties") or {})
    required = set(rule.get("required") or ())
    parts = {name: strategy_for(sub) if name in required else st.one_of(st.none(), strategy_for(sub))
             for name, sub in sorted(props.items())}
    return st.fixed_dictionaries(parts).map(lambda d: {k: v for k, v in d.items() if v is not None})


def _params(schema: Mapping[str, Mapping[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Each declared parameter either left to its default or drawn from its rule."""
    return _object({"properties": schema})


# -- the world ---------------------------------------------------------------------------------------
def world_changes(workload: str) -> st.SearchStrategy[tuple[str, str, Any]]:
    """One change of the world: (part, name, value): a workload parameter, a service option, the workers."""
    options: list[st.SearchStrategy[tuple[str, str, Any]]] = []
    for name, rule in sorted(get_workload(workload).params_schema.items()):
        if rule.get("type") == "string" and "enum" not in rule and "pattern" not in rule:
            continue  # free text (a title, a topic): nothing to explore
        options.append(st.tuples(st.just("params"), st.just(name), strategy_for(rule)))
    for spec in services():
        for name, rule in sorted(spec.options_schema.items()):
            options.append(st.tuples(st.just(f"services.{spec.name}"), st.just(name), strategy_for(rule)))
    options.append(st.tuples(st.just("workers"), st.just("workers"), st.integers(2, _MAX_WORKERS)))
    return st.one_of(options)


def _change_world(world: Mapping[str, Any], change: tuple[str, str, Any]) -> dict[str, Any]:
    part, name, value = change
    params, options, workers = _parts(world)
    if part == "workers":
        workers = int(value)
    elif part == "params":
        params[name] = value
    else:
        options.setdefault(part.split(".", 1)[1], {})[name] = value
    return {"params": params, "services": options, "workers": workers}


def _parts(world: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, dict[str, Any]], int]:
    """A copy of ``world``'s parts: workload parameters, service options, workers."""
    return (dict(world.get("params") or {}), {k: dict(v) for k, v in (world.get("services") or {}).items()},
            int(world.get("workers", 1)))


def _drop_world(world: Mapping[str, Any], index: int) -> dict[str, Any]:
    """``world`` without its ``index``-th option (counting workload parameters, then service options,
    then the workers)."""
    params, options, workers = _parts(world)
    names = [("params", n) for n in params] + [(s, n) for s, opts in options.items() for n in opts]
    names += [("workers", "workers")] if workers != 1 else []
    if names:
        part, name = names[index % len(names)]
        if part == "params":
            del params[name]
        elif part == "workers":
            workers = 1
        else:
            del options[part][name]
    return {"params": params, "services": options, "workers": workers}


# -- entries -------------------------------------------------------------------------------------------
def _trigger(channels: Sequence[Channel]) -> st.SearchStrategy[Trigger]:
    return st.sampled_from(list(channels)).flatmap(lambda c: st.builds(
        Trigger, st.just(c.service), st.just(c.method), st.just(c.route),
        st.integers(1, max(1, c.count)), st.sampled_from([1, 1, 2, 3])))


def _fault(kind: str, channels: Sequence[Channel], workload: str) -> st.SearchStrategy[PlanEntry] | None:
    cls = get_fault_kind(kind)
    if cls.workloads is not None and workload not in cls.workloads:
        return None
    if cls.drivers is not None and "python" not in cls.drivers:  # exploration runs Python candidates
        return None
    usable = usable_channels(kind, cls.services, channels)
    if not usable:
        return None
    return st.builds(PlanEntry, st.just(kind), st.just(False), _trigger(usable), st.none(),
                     _params(cls.params_schema))


def usable_channels(kind: str, services: Sequence[str] | None, channels: Sequence[Channel]) -> list[Channel]:
    """The channels a fault kind can act on: the webhooks for a webhook fault, streams for a stream
    fault, the services it names (any, when it names none)."""
    usable = [c for c in channels if (c.service == "webhooks") == (tuple(services or ()) == ("webhooks",))
              and (services is None or c.service in services)]
    return [c for c in usable if c.streamed] if kind in _STREAM_KINDS else usable


def _action(kind: str, channels: Sequence[Channel], conditions: Sequence[str], workload: str
            ) -> st.SearchStrategy[PlanEntry] | None:
    cls = get_action_kind(kind)
    if cls.workloads is not None and workload not in cls.workloads:
        return None
    params = _params(cls.params_schema)
    by_request = st.builds(PlanEntry, st.just(kind), st.just(True), _trigger([c for c in channels if c.service != "webhooks"]),
                           st.none(), st.tuples(params, st.sampled_from(["before", "after"])).map(
                               lambda pp: {**pp[0], "point": pp[1]}))
    if not conditions:
        return by_request
    by_condition = st.builds(PlanEntry, st.just(kind), st.just(True), st.none(), st.sampled_from(list(conditions)), params)
    return st.one_of(by_request, by_condition)


def _entries(channels: Sequence[Channel], conditions: Sequence[str], workload: str, kinds: Sequence[str] | None,
             actions: bool) -> st.SearchStrategy[PlanEntry]:
    wanted = [k for k in (kinds or fault_kinds()) if k in fault_kinds()]
    options = [s for s in (_fault(k, channels, workload) for k in wanted) if s is not None]
    if actions:
        options += [s for s in (_action(k, channels, conditions, workload) for k in action_kinds()
                                if kinds is None or k in kinds) if s is not None]
    if not options:
        raise ValueError("no fault kind can act on the channels this candidate used")
    return st.one_of(options)


def fresh_plans(channels: Sequence[Channel], conditions: Sequence[str], workload: str, *,
                kinds: Sequence[str] | None = None, actions: bool = True, max_entries: int = 3,
                world: bool = True) -> st.SearchStrategy[Plan]:
    """Plans of 1 to ``max_entries`` entries over the given channels, in a drawn world (``world``)."""
    entries = st.lists(_entries(channels, conditions, workload, kinds, actions), min_size=1, max_size=max_entries)
    changes = st.lists(world_changes(workload), max_size=2) if world else st.just([])

    def build(drawn: tuple[list[PlanEntry], list[tuple[str, str, Any]]]) -> Plan:
        entries_, changes_ = drawn
        w: dict[str, Any] = {}
        for change in changes_:
            w = _change_world(w, change)
        return Plan(workload, with_requirements(tuple(e.to_yaml() for e in entries_)), w)

    return st.tuples(entries, changes).map(build)


def with_requirements(entries: tuple[Mapping[str, Any], ...]) -> tuple[Mapping[str, Any], ...]:
    """``entries`` with what each action needs to have something to act on put first (an approval
    before a revocation), unless an entry of that kind is there already."""
    kinds = {e["kind"] for e in entries}
    needed: list[Mapping[str, Any]] = []
    for entry in entries:
        if entry["kind"] not in action_kinds():
            continue
        for required in get_action_kind(str(entry["kind"])).requires:
            if required["kind"] not in kinds:
                kinds.add(str(required["kind"]))
                needed.append(dict(required))
    return (*needed, *entries)


# -- variations of the catalogue ---------------------------------------------------------------------
_REQUEST_KINDS = ("lose_response", "error_after_commit", "crash", "http_error", "refuse_connection")


def _edit(entries: tuple[Mapping[str, Any], ...], op: tuple[Any, ...], world: Mapping[str, Any]
          ) -> tuple[tuple[Mapping[str, Any], ...], Mapping[str, Any]]:
    """``entries`` and ``world`` after one change ``op`` (indices are taken modulo the entries)."""
    name = op[0]
    if name == "add":
        return with_requirements((*entries, op[1].to_yaml())), world
    if name == "world":
        return entries, _change_world(world, op[1])
    if name == "unworld":
        return entries, _drop_world(world, op[1])
    if not entries:
        return entries, world
    i = op[1] % len(entries)
    entry = dict(entries[i])
    at = dict(entry.get("at") or {})
    if name == "drop":
        return entries[:i] + entries[i + 1:], world
    if name == "nth" and at:
        at["nth"] = max(1, int(at.get("nth", 1)) + op[2])
        entry["at"] = at
    elif name == "times" and at:
        at["times"] = op[2]
        if at["times"] == 1:
            del at["times"]
        entry["at"] = at
    elif name == "point":
        entry["point"] = "after" if entry.get("point", "before") == "before" else "before"
    elif name == "kind" and at and entry["kind"] in _REQUEST_KINDS:
        entry = {"kind": op[2], "at": at, **({"point": "after"} if op[2] == "crash" else {})}
    return entries[:i] + (entry,) + entries[i + 1:], world


def _changes(channels: Sequence[Channel], conditions: Sequence[str], workload: str, *,
             kinds: Sequence[str] | None, actions: bool) -> st.SearchStrategy[list[tuple[Any, ...]]]:
    """One to three changes of a plan: an entry added, dropped or retargeted, its world changed."""
    index = st.integers(0, 9)
    ops = st.one_of(
        st.tuples(st.just("add"), _entries(channels, conditions, workload, kinds, actions)),
        st.tuples(st.just("drop"), index),
        st.tuples(st.just("nth"), index, st.sampled_from([1, -1, 2])),
        st.tuples(st.just("times"), index, st.sampled_from([2, "all", 1])),
        st.tuples(st.just("point"), index),
        st.tuples(st.just("kind"), index, st.sampled_from([k for k in _REQUEST_KINDS if kinds is None or k in kinds]
                                                         or ["crash"])),
        st.tuples(st.just("world"), world_changes(workload)),
        st.tuples(st.just("unworld"), index),
    )
    return st.lists(ops, min_size=1, max_size=3)


def _vary(workload: str, drawn: tuple[Plan, list[tuple[Any, ...]]]) -> Plan:
    base, changes = drawn
    entries, world = base.entries, base.world
    for op in changes:
        entries, world = _edit(entries, op, world)
    return Plan(workload, entries, dict(world), origin=base.origin, deadline_s=base.deadline_s)


def variations(corpus: Sequence[Plan], channels: Sequence[Channel], conditions: Sequence[str], workload: str, *,
               kinds: Sequence[str] | None = None, actions: bool = True) -> st.SearchStrategy[Plan]:
    """A plan of the catalogue with one to three changes (which may, rarely, give it back as written)."""
    known = list(corpus)
    pick = st.integers(0, len(known) - 1).map(lambda i: known[i])  # (a sampled_from would print every plan)
    # A change may undo another (or not apply): the explorer never runs a plan as the catalogue wrote it.
    changes = _changes(channels, conditions, workload, kinds=kinds, actions=actions)
    return st.tuples(pick, changes).map(lambda drawn: _vary(workload, drawn))


def plans(channels: Sequence[Channel], conditions: Sequence[str], workload: str, *,
          corpus: Sequence[Plan] = (), kinds: Sequence[str] | None = None, actions: bool = True,
          max_entries: int = 3, reached: Sequence[Plan] | None = None) -> st.SearchStrategy[Plan]:
    """Variations of the catalogue's plans (when ``corpus`` has any) and fresh plans; with ``reached``
    (the guided search's: the plans that reached something no plan had before, a list the explorer
    adds to as it goes), half the time a variation of one of those."""
    fresh = fresh_plans(channels, conditions, workload, kinds=kinds, actions=actions, max_entries=max_entries)
    inner = fresh if not corpus else st.one_of(
        variations(corpus, channels, conditions, workload, kinds=kinds, actions=actions), fresh)
    changes = _changes(channels, conditions, workload, kinds=kinds, actions=actions)

    @st.composite
    def plan(draw: st.DrawFn) -> Plan:  # a short name in Hypothesis's messages (the whole strategy prints kilobytes)
        # The same draws whatever ``reached`` holds now (it grows between plans: Hypothesis replays a
        # draw's choices and must meet the same kinds of choice); ``use`` shrinks to False, the unguided plan.
        use, index, changed = draw(st.booleans()), draw(st.integers(0, 2**16)), draw(changes)
        drawn: Plan = draw(inner)
        if use and reached:
            return _vary(workload, (reached[index % len(reached)], changed))
        return drawn

    return plan()


# -- one variation of each catalogue plan, for the search's first pass --------------------------------
def random_value(rule: Mapping[str, Any], rng: random.Random) -> Any:
    """A value for ``rule`` drawn from ``rng`` (what ``strategy_for`` draws, without Hypothesis), or
    None for a rule it cannot draw for (free text, a pattern)."""
    if "enum" in rule:
        return rng.choice(list(rule["enum"]))
    kind = rule.get("type")
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "integer":
        return rng.choice(_integers(rule))
    if kind == "number":
        floor, ceiling = float(rule.get("minimum", rule.get("exclusiveMinimum", 0))), float(rule.get("maximum", 3600))
        return rng.choice(sorted({min(ceiling, max(floor, v)) for v in (1.0, 5.0, 30.0, 60.0)} - {0.0} or {ceiling}))
    if kind == "array":
        items = [random_value(rule.get("items", {}), rng) for _ in range(rng.randint(int(rule.get("minItems", 0)), 2))]
        kept = [v for v in items if v is not None]
        return [v for i, v in enumerate(kept) if repr(v) not in map(repr, kept[:i])] or None
    if kind == "object":
        props = dict(rule.get("properties") or {})
        required = set(rule.get("required") or ())
        out = {name: random_value(sub, rng) for name, sub in sorted(props.items()) if name in required or rng.random() < 0.5}
        return {k: v for k, v in out.items() if v is not None}
    return None


def _random_world_change(workload: str, rng: random.Random) -> tuple[str, str, Any] | None:
    rules = [("params", name, rule) for name, rule in sorted(get_workload(workload).params_schema.items())]
    rules += [(f"services.{spec.name}", name, rule) for spec in services() for name, rule in sorted(spec.options_schema.items())]
    rules.append(("workers", "workers", {"type": "integer", "minimum": 2, "maximum": _MAX_WORKERS}))
    part, name, rule = rng.choice(rules)
    value = random_value(rule, rng)
    return None if value is None else (part, name, value)


def random_variation(plan: Plan, rng: random.Random, *, kinds: Sequence[str] | None = None,
                     gentle: bool = False) -> Plan:
    """One variation of ``plan`` drawn from ``rng``: one change of its entries' triggers or kinds, or of
    its world (as ``variations`` draws them); with ``gentle``, of its world only (the plan's faults
    and actions as written, in a world it was not written for). The plan as written when no change
    applies."""
    entries, world = plan.entries, plan.world
    for _ in range(8):  # a few tries: a change may not apply to this plan (no request trigger to move)
        op: tuple[Any, ...]
        choice = "world" if gentle else rng.choice(["nth", "times", "point", "kind", "world", "world", "world", "unworld"])
        i = rng.randrange(10)
        if choice == "nth":
            op = ("nth", i, rng.choice([1, -1, 2]))
        elif choice == "times":
            op = ("times", i, rng.choice([2, "all"]))
        elif choice == "kind":
            op = ("kind", i, rng.choice([k for k in _REQUEST_KINDS if kinds is None or k in kinds] or ["crash"]))
        elif choice == "world":
            change = _random_world_change(plan.workload, rng)
            if change is None:
                continue
            op = ("world", change)
        else:
            op = (choice, i)
        entries, world = _edit(plan.entries, op, plan.world)
        varied = Plan(plan.workload, entries, dict(world), origin=plan.origin, deadline_s=plan.deadline_s)
        if varied.key() != plan.key():
            return varied
    return plan
