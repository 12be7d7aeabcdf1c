"""A plan: a world and the faults and people's actions that act in it, held as the plain data of a
scenario file, so that what runs is exactly what is exported.

The *world* is what a scenario sets besides its faults and actions: the workload's parameters
(``workload.params``: a long session, an agent that overclaims), the services' options
(``services``: a busy site, a site without the lookup plugin, fencing) and the number of workers.
An *entry* is one item of ``faults`` or ``actions`` as a scenario file writes it (its kind tells
which list it belongs to). A plan may come from the catalogue (``origin``: the scenario it is a
variation of) or be drawn from nothing.

This module builds scenarios from plans (through the loader, so a plan is checked as a file is),
writes them as scenario files, and lists the one-step simplifications a shrink tries. It draws
nothing (``_strategies`` does) and runs nothing (``_explorer`` does).
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from durable_harness.harness.actions import action_kinds
from durable_harness.harness.scenario import Scenario, scenario_from_raw
from durable_harness.harness.scenario._bounded import load_bounded, read_regular

__all__ = ["DEADLINE_S", "Plan", "catalogue_plans", "plan_raw", "plan_scenario", "simpler"]

Entry = Mapping[str, Any]
# A plan's virtual deadline: a job of the bundled workloads settles within minutes, and a person who
# waits for something that never comes (a revocation with no approval in force) holds the run to it.
DEADLINE_S = 900.0
_WORLD_KEYS = ("params", "services", "workers")
_TRIGGER_KEYS = ("kind", "at", "when", "at_s", "delay_s", "point", "worker")  # never dropped as a "parameter"


@dataclass(frozen=True)
class Plan:
    """``world``: ``{"params": {...}, "services": {name: {...}}, "workers": n}``, each part optional;
    ``entries``: faults and actions, in order, as a scenario file writes them."""

    workload: str
    entries: tuple[Entry, ...]
    world: Mapping[str, Any] = field(default_factory=dict)
    origin: str | None = None
    deadline_s: float = DEADLINE_S

    def key(self) -> str:
        """The plan's identity: its world and its entries (not where it came from)."""
        return json.dumps([self.workload, _clean_world(self.world), list(self.entries)], sort_keys=True, default=str)

    def digest(self) -> str:
        return hashlib.sha256(self.key().encode()).hexdigest()[:8]

    def size(self) -> tuple[int, int, int]:
        """What a shrink makes smaller: entries, then world options, then the triggers' counts."""
        world = _clean_world(self.world)
        options = len(world.get("params", {})) + sum(len(o) or 1 for o in world.get("services", {}).values()) + (
            int(world.get("workers", 1)) - 1)
        counts = 0
        for e in self.entries:
            at = e.get("at") or {}
            times = at.get("times", 1)
            counts += int(at.get("nth", 1)) + (9 if times == "all" else int(times)) + len(_params(e))
        return (len(self.entries), options, counts)

    def describe(self) -> str:
        parts = [f"{e['kind']} {_where(e)}" for e in self.entries]
        world = _clean_world(self.world)
        if world:
            parts.append("world " + json.dumps(world, sort_keys=True))
        return "; ".join(parts) or "(nothing)"


def _where(entry: Entry) -> str:
    at = entry.get("at")
    if at:
        times = at.get("times", 1)
        suffix = "" if times == 1 else f" x{times}"
        return f"{at.get('method')} {at.get('service')}{at.get('route')} #{at.get('nth', 1)}{suffix}"
    if "when" in entry:
        return f"when {entry['when']}"
    return f"at t={entry.get('at_s')}s"


def _params(entry: Entry) -> list[str]:
    return [k for k in entry if k not in _TRIGGER_KEYS]


def _clean_world(world: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if world.get("params"):
        out["params"] = dict(world["params"])
    services = {name: dict(opts) for name, opts in (world.get("services") or {}).items() if opts}
    if services:
        out["services"] = services
    if int(world.get("workers", 1)) != 1:
        out["workers"] = int(world["workers"])
    return out


def plan_raw(plan: Plan, scenario_id: str, *, covers: str = "fault plans found by exploration",
             seed: int | None = None) -> dict[str, Any]:
    """``plan`` as the plain data of a scenario file (expecting whatever the world shows)."""
    world = _clean_world(plan.world)
    actions = set(action_kinds())
    workload: dict[str, Any] = {"kind": plan.workload}
    if world.get("params"):
        workload["params"] = world["params"]
    raw: dict[str, Any] = {"id": scenario_id, "title": f"Exploration of the {plan.workload} workload", "covers": covers}
    if seed is not None:
        raw["seed"] = seed
    raw["workload"] = workload
    if world.get("workers", 1) != 1:
        raw["workers"] = world["workers"]
    if world.get("services"):
        raw["services"] = world["services"]
    raw["faults"] = [dict(e) for e in plan.entries if e["kind"] not in actions]
    acting = [dict(e) for e in plan.entries if e["kind"] in actions]
    if acting:
        raw["actions"] = acting
    raw["expect"] = {"outcome": "from_world", "max_redone_steps": 1000, "deadline_s": plan.deadline_s}
    raw["must_catch"] = []
    return copy.deepcopy(raw)


def plan_scenario(plan: Plan, scenario_id: str, seed: int | None = None) -> Scenario:
    """The scenario ``plan`` is; raises ``ScenarioError`` for a plan no scenario file could state."""
    return scenario_from_raw(plan_raw(plan, scenario_id, seed=seed), Path(f"{scenario_id}.yaml"))


def catalogue_plans(folder: Path, workload: str, *, python: bool = True) -> list[Plan]:
    """The plans of the catalogue's scenarios of ``workload`` (sweeps aside; with ``python``, the ones a
    candidate in the harness's driver can run: no network faults)."""
    from durable_harness.harness.faults import get_fault_kind

    plans = []
    for path in sorted(folder.glob("*.yaml")):
        raw = load_bounded(read_regular(path).decode("utf-8"))
        if not isinstance(raw, dict) or raw.get("sweep") or (raw.get("workload") or {}).get("kind") != workload:
            continue
        entries = [*(raw.get("faults") or []), *(raw.get("actions") or [])]
        if python and any((get_fault_kind(str(e["kind"])).drivers or ("python",)) == ("process",) for e in entries
                          if e.get("kind") not in action_kinds()):
            continue
        world = {"params": dict((raw.get("workload") or {}).get("params") or {}),
                 "services": {k: dict(v) for k, v in (raw.get("services") or {}).items()},
                 "workers": int(raw.get("workers", 1))}
        deadline = max(DEADLINE_S, float((raw.get("expect") or {}).get("deadline_s", DEADLINE_S)))
        plans.append(Plan(workload, tuple(entries), _clean_world(world), origin=str(raw.get("id", path.stem)),
                          deadline_s=deadline))
    return plans


def simpler(plan: Plan) -> Iterator[Plan]:
    """Each plan one step simpler than ``plan``: an entry dropped; a trigger at its first match, once;
    a parameter back to its default; a world option dropped; one worker."""
    entries = list(plan.entries)
    for i in range(len(entries)):
        if len(entries) > 1 or _clean_world(plan.world):  # a plan of a world alone is a plan (a retried step)
            yield _with(plan, entries[:i] + entries[i + 1:])
    for i, entry in enumerate(entries):
        at = entry.get("at")
        if at and at.get("times", 1) != 1:
            yield _with(plan, _replace(entries, i, {**entry, "at": {k: v for k, v in at.items() if k != "times"}}))
        if at and int(at.get("nth", 1)) > 1:
            yield _with(plan, _replace(entries, i, {**entry, "at": {**at, "nth": 1}}))
        if at and "while" in at:
            yield _with(plan, _replace(entries, i, {**entry, "at": {k: v for k, v in at.items() if k != "while"}}))
        for name in _params(entry):
            yield _with(plan, _replace(entries, i, {k: v for k, v in entry.items() if k != name}))
        if entry.get("delay_s"):
            yield _with(plan, _replace(entries, i, {k: v for k, v in entry.items() if k != "delay_s"}))
    world = _clean_world(plan.world)
    for name in world.get("params", {}):
        yield _world(plan, {**world, "params": {k: v for k, v in world["params"].items() if k != name}})
    for service, options in world.get("services", {}).items():
        yield _world(plan, {**world, "services": {k: v for k, v in world["services"].items() if k != service}})
        if len(options) > 1:
            for name in options:
                yield _world(plan, {**world, "services": {**world["services"],
                                                          service: {k: v for k, v in options.items() if k != name}}})
    if world.get("workers", 1) != 1:
        yield _world(plan, {k: v for k, v in world.items() if k != "workers"})


def _with(plan: Plan, entries: Sequence[Entry]) -> Plan:
    return Plan(plan.workload, tuple(entries), plan.world, plan.origin, plan.deadline_s)


def _world(plan: Plan, world: Mapping[str, Any]) -> Plan:
    return Plan(plan.workload, plan.entries, _clean_world(world), plan.origin, plan.deadline_s)


def _replace(entries: list[Entry], i: int, entry: Entry) -> list[Entry]:
    return entries[:i] + [entry] + entries[i + 1:]
