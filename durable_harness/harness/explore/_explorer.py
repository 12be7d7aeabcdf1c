"""``explore``: search fault plans for one that breaks a candidate, then shrink it.

A clean run of the workload tells which channels the candidate uses; Hypothesis draws plans over
them (``_strategies``), each plan is run in-process as a scenario whose outcome is whatever the
world shows (``from_world``: a plan that makes the job impossible is not a finding when the
candidate says so), and the first plan that makes a safety checker fail, or leaves the job stuck,
is a finding. Hypothesis then shrinks it to the fewest entries and the simplest triggers that
still break the same counter. The search is reproducible from its seed; its example database is
kept in the report folder, so a rerun finds the same failure at once.

The budget is wall-clock time (this module reads the wall clock for it, and for nothing else: the
runs themselves are on their virtual clocks).
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.errors import NoSuchExample

from durable_harness.harness._run import run_once
from durable_harness.harness.explore._strategies import Channel, PlanEntry, plans
from durable_harness.harness.scenario import ActionSpec, Expect, FaultSpec, Scenario, WorkloadSpec
from durable_harness.harness.services import services
from durable_harness.harness.workloads import get_workload

__all__ = ["Exploration", "Finding", "explore", "plan_scenario"]

_NOT_FINDINGS = ("faults_fired", "abandoned_jobs", "progress_loss")  # coverage, or judged against a constant
_LIVENESS_FINDINGS = ("stuck_jobs",)


class _OutOfTime(BaseException):
    """The budget ran out (raised inside Hypothesis's search to end it)."""


@dataclasses.dataclass
class Finding:
    plan: list[PlanEntry]
    counter: str
    because: str
    reproduce: str


@dataclasses.dataclass
class Exploration:
    seed: int
    candidate: str
    workload: str
    plans_run: int = 0
    finding: Finding | None = None
    first_finding_s: float | None = None
    elapsed_s: float = 0.0
    kinds_tried: Counter[str] = dataclasses.field(default_factory=Counter)
    kinds_fired: Counter[str] = dataclasses.field(default_factory=Counter)
    channels: Counter[str] = dataclasses.field(default_factory=Counter)
    at_risk: Counter[str] = dataclasses.field(default_factory=Counter)
    harness_errors: list[str] = dataclasses.field(default_factory=list)


def base_scenario(workload: str) -> Scenario:
    """The workload's job with no fault: what plans are added to."""
    get_workload(workload)
    return Scenario(id=f"explore-{workload}", title=f"Exploration of the {workload} workload",
                    covers="fault plans found by exploration", workload=WorkloadSpec(workload, f"job-explore-{workload}", "1"),
                    faults=(), expect=Expect(outcome="from_world", max_redone_steps=1000), must_catch=(),
                    source=Path(f"explore-{workload}.yaml"))


def plan_scenario(base: Scenario, plan: Sequence[PlanEntry], scenario_id: str | None = None) -> Scenario:
    faults = tuple(FaultSpec(e.kind, e.at, dict(e.params)) for e in plan if not e.action and e.at is not None)
    actions = tuple(ActionSpec(e.kind, at=e.at, when=e.when, params=dict(e.params)) for e in plan if e.action)
    return dataclasses.replace(base, id=scenario_id or base.id, faults=faults, actions=actions)


def channels_of(base: Scenario, candidate: str, seed: int) -> tuple[list[Channel], list[str]]:
    """The channels the candidate used before the world healed, and the conditions triggers may name."""
    _doc, history = run_once(base, candidate, seed)
    heal = next((e.index for e in history.of_type("phase") if e.data.get("phase") == "heal"), len(history))
    counts: Counter[tuple[str, str, str]] = Counter()
    for entry in history.of_type("invoke"):
        if entry.index >= heal:
            continue
        if entry.process == "openai-webhooks":
            counts[("webhooks", "POST", "/" + str(entry.data.get("type")))] += 1
        elif entry.process.startswith("worker-"):
            counts[(str(entry.data.get("service")), str(entry.data.get("method")), _pattern(str(entry.data.get("route"))))] += 1
    channels = [Channel(s, m, r, n, streamed=(m == "GET" and r.endswith("/events"))) for (s, m, r), n in sorted(counts.items())]
    workload = get_workload(base.workload.kind)
    tools = workload.build_job("j", "1", {})["allowed_tools"]
    conditions = sorted({c for s in services() for c in s.conditions} | set(workload.conditions))
    conditions = [c for c in conditions if c != "tool_call_pending"] + [f"tool_call_pending:{t}" for t in tools]
    return channels, conditions


def _pattern(route: str) -> str:
    """A route with its ids as ``{id}`` (``/agents/sessions/sess_0001/events`` -> ``.../{id}/events``)."""
    parts = route.split("/")
    return "/".join("{id}" if (any(c.isdigit() for c in p) and p not in ("v1", "v2")) else p for p in parts)


def explore(candidate: str, workload: str = "article", *, seed: int = 0, budget_s: float = 60.0,
            max_plans: int = 10_000, kinds: Sequence[str] | None = None, max_entries: int = 3,
            database: Path | None = None, actions: bool = True) -> Exploration:
    base = base_scenario(workload)
    result = Exploration(seed=seed, candidate=candidate, workload=workload)
    channels, conditions = channels_of(base, candidate, seed)
    strategy = plans(channels, conditions, workload, kinds=kinds, actions=actions, max_entries=max_entries)
    started = time.monotonic()
    locked: list[str] = []  # the counter the first finding broke: shrinking keeps breaking it
    best: list[Finding] = []

    def breaks(plan: list[PlanEntry]) -> bool:
        elapsed = time.monotonic() - started
        if (not best and elapsed > budget_s) or elapsed > 2 * budget_s + 30:
            raise _OutOfTime()
        result.plans_run += 1
        finding = _judge(result, base, candidate, seed, plan)
        if finding is None or (locked and finding.counter != locked[0]):
            return False
        if not locked:
            locked.append(finding.counter)
            result.first_finding_s = round(time.monotonic() - started, 3)
        if not best or _size(plan) < _size(best[-1].plan):
            best.append(finding)
        return True

    config = settings(max_examples=max_plans, deadline=None, database=DirectoryBasedExampleDatabase(str(database))
                      if database is not None else None, suppress_health_check=list(HealthCheck),
                      phases=[Phase.reuse, Phase.generate, Phase.shrink])
    try:
        find(strategy, breaks, settings=config, random=random.Random(seed),
             database_key=f"{candidate}/{workload}/{','.join(kinds or [])}/{max_entries}".encode())
    except (NoSuchExample, _OutOfTime):
        pass
    if best:
        try:
            _minimize(best[-1].plan, breaks)
        except _OutOfTime:
            pass
    result.finding = best[-1] if best else None
    result.elapsed_s = round(time.monotonic() - started, 3)
    return result


def _minimize(plan: list[PlanEntry], breaks: Callable[[list[PlanEntry]], bool]) -> None:
    """Finish the shrink greedily (Hypothesis keeps the earliest, simplest-looking entries and may
    not try dropping them): drop each entry, then simplify each trigger and drop each parameter,
    keeping every change that still breaks the same counter (``breaks`` records the smaller plan)."""
    changed = True
    while changed:
        changed = False
        for i in range(len(plan)):
            if len(plan) > 1 and breaks(plan[:i] + plan[i + 1:]):
                plan = plan[:i] + plan[i + 1:]
                changed = True
                break
        if changed:
            continue
        for i, entry in enumerate(plan):
            for simpler in _simpler(entry):
                if breaks(plan[:i] + [simpler] + plan[i + 1:]):
                    plan = plan[:i] + [simpler] + plan[i + 1:]
                    changed = True
                    break
            if changed:
                break


def _simpler(entry: PlanEntry) -> list[PlanEntry]:
    out = []
    if entry.at is not None and (entry.at.times or 0) != 1:
        out.append(dataclasses.replace(entry, at=dataclasses.replace(entry.at, times=1)))
    if entry.at is not None and entry.at.nth > 1:
        out.append(dataclasses.replace(entry, at=dataclasses.replace(entry.at, nth=1)))
    out += [dataclasses.replace(entry, params={k: v for k, v in entry.params.items() if k != name})
            for name in entry.params if name != "point"]
    return out


def _size(plan: Sequence[PlanEntry]) -> tuple[int, int]:
    return (len(plan), sum((e.at.nth + (e.at.times or 9)) if e.at is not None else 1 for e in plan))


def _judge(result: Exploration, base: Scenario, candidate: str, seed: int, plan: list[PlanEntry]) -> Finding | None:
    scenario = plan_scenario(base, plan)
    doc, _ = run_once(scenario, candidate, seed)
    for entry, fault in zip(plan, doc["faults"]):
        result.kinds_tried[entry.kind] += 1
        result.kinds_fired[entry.kind] += fault.get("status") == "fired"
        if entry.at is not None:
            result.channels[f"{entry.at.method} {entry.at.service}{entry.at.route}"] += 1
    error = doc.get("error")
    if error is not None:
        if error["kind"] == "harness":
            result.harness_errors.append(str(error["message"]))
            return None
        return Finding(plan, "candidate_error", str(error["message"]), doc["reproduce"])
    for c in doc["checkers"]:
        if c["verdict"] != "pass":
            result.at_risk[c["name"]] += 1
    broken = [c for c in doc["checkers"] if c["verdict"] == "fail" and c["name"] not in _NOT_FINDINGS
              and (c["class"] == "safety" or c["name"] in _LIVENESS_FINDINGS)]
    if not broken:
        return None
    first = sorted(broken, key=lambda c: c["name"])[0]
    return Finding(plan, first["name"], first["because"], doc["reproduce"])
