"""``explore``: search plans for one that breaks a candidate, then shrink it.

A clean run of the workload tells which channels the candidate uses. A first pass runs a variation
of each catalogue scenario of the workload in a world it was not written for, then every single
fault and action from scratch (``_scratch``); then Hypothesis draws plans (``_strategies``):
variations of the catalogue's scenarios, fresh plans over those channels, each in a world of its
own (a long session, a busy site, two workers, ...), and (``guided``, asked for) variations of the plans that
reached new code or new behaviour (``_reach``). Each
plan is run as a scenario whose outcome is whatever the world shows (``from_world``: a plan that
makes the job impossible is not a finding when the candidate says so), and the first plan that
makes a safety checker fail, or leaves the job stuck, is a finding. It is then shrunk to the fewest
entries, the fewest world options and the simplest triggers that still break the same counter
(never back into a catalogue scenario as written). The search is reproducible from its seed; its
example database is kept in the report folder, so a rerun finds the same failure at once.

The budget is wall-clock time (this module reads the wall clock for it, and for nothing else: the
runs themselves are on their virtual clocks).
"""

from __future__ import annotations

import dataclasses
import json
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.errors import HypothesisWarning, NoSuchExample

from durable_harness.harness._run import run_once
from durable_harness.harness._seeds import component_random
from durable_harness.harness._shard import Shard
from durable_harness.harness.explore._plans import DEADLINE_S, Plan, catalogue_plans, simpler
from durable_harness.harness.explore._pool import OutOfTime, PlanPool, run_plan
from durable_harness.harness.explore._reach import Guide, route_pattern
from durable_harness.harness.explore._scratch import scratch_plans
from durable_harness.harness.explore._shards import first_pass_share, search_random
from durable_harness.harness.explore._strategies import Channel, plans, random_variation
from durable_harness.harness.scenario import Expect, Scenario, WorkloadSpec, catalogue_dir
from durable_harness.harness.services import services
from durable_harness.harness.workloads import get_workload

__all__ = ["Exploration", "Finding", "explore"]

_NOT_FINDINGS = ("faults_fired", "abandoned_jobs", "progress_loss")  # coverage, or judged against a constant
_LIVENESS_FINDINGS = ("stuck_jobs",)


class _OutOfTime(BaseException):
    """The budget ran out (raised inside Hypothesis's search to end it)."""


@dataclasses.dataclass
class Finding:
    plan: Plan
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
    first_finding_plans: int | None = None  # plans run when the first finding came
    elapsed_s: float = 0.0
    kinds_tried: Counter[str] = dataclasses.field(default_factory=Counter)
    kinds_fired: Counter[str] = dataclasses.field(default_factory=Counter)
    channels: Counter[str] = dataclasses.field(default_factory=Counter)
    at_risk: Counter[str] = dataclasses.field(default_factory=Counter)
    harness_errors: list[str] = dataclasses.field(default_factory=list)
    invalid_plans: int = 0  # plans no scenario file could state (the schema refused them): not run
    variations: Counter[str] = dataclasses.field(default_factory=Counter)  # catalogue scenario -> variations run
    worlds: Counter[str] = dataclasses.field(default_factory=Counter)  # world option -> plans run with it
    guided: bool = False  # the search preferred plans that reached something new (``_reach``)
    reached: int = 0  # lines of the candidate's code and shapes of what it did, reached by any plan
    reached_lines: int = 0  # of those, lines of the candidate's own code (Python candidates)
    reaching_plans: int = 0  # plans that reached something no plan before them had
    shard: Shard | None = None  # --shard K/N: this search is share K of N (``_shards``)


def base_scenario(workload: str) -> Scenario:
    """The workload's job with no fault: what plans are added to."""
    get_workload(workload)
    return Scenario(id=f"explore-{workload}", title=f"Exploration of the {workload} workload",
                    covers="fault plans found by exploration", workload=WorkloadSpec(workload, f"job-explore-{workload}", "1"),
                    faults=(), expect=Expect(outcome="from_world", max_redone_steps=1000), must_catch=(),
                    source=Path(f"explore-{workload}.yaml"))


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
            counts[(str(entry.data.get("service")), str(entry.data.get("method")), route_pattern(str(entry.data.get("route"))))] += 1
    channels = [Channel(s, m, r, n, streamed=(m == "GET" and r.endswith("/events"))) for (s, m, r), n in sorted(counts.items())]
    workload = get_workload(base.workload.kind)
    tools = workload.build_job("j", "1", {})["allowed_tools"]
    conditions = sorted({c for s in services() for c in s.conditions} | set(workload.conditions))
    # A pending call of a tool the agent never called in the clean run would never come: only those it called.
    called = _called_tools(history) or set(tools)
    conditions = [c for c in conditions if c != "tool_call_pending"] + [f"tool_call_pending:{t}" for t in tools
                                                                        if t in called]
    return channels, conditions


def _called_tools(history: Any) -> set[str]:
    """The tools the agent called in a run: what the sessions API's answers listed as required actions."""
    called: set[str] = set()
    for entry in history.of_type("ok"):
        body = entry.data.get("body")
        actions = body.get("required_actions") if isinstance(body, dict) else None
        for action in actions if isinstance(actions, list) else ():
            if isinstance(action, dict) and isinstance(action.get("name"), str):
                called.add(action["name"])
    return called


def explore(candidate: str, workload: str = "article", *, seed: int = 0, budget_s: float = 60.0,
            max_plans: int = 10_000, kinds: Sequence[str] | None = None, max_entries: int = 3,
            database: Path | None = None, actions: bool = True, corpus: bool = True, jobs: int = 1,
            shard: Shard | None = None, guided: bool = False, scratch: bool = True, lines: bool = True) -> Exploration:
    """Search plans against ``candidate`` for ``budget_s`` seconds or ``max_plans`` plans; with
    ``corpus``, variations of the catalogue's scenarios of ``workload`` beside fresh plans. With
    ``jobs`` above one, the first pass runs in that many worker processes (the search after it, and
    the shrink, run here: each plan Hypothesis draws depends on the ones before). With ``shard``,
    this is share K of N of the search (``_shards``). ``guided``: half the plans drawn are
    variations of the plans that reached new code or new shapes of behaviour (``_reach``).
    ``scratch``: the first pass runs every single fault and action (``_scratch``) after the
    catalogue's variations. ``lines``: what a plan reached includes the lines of a Python candidate's
    code (traced in its instance, at a cost); without, only the shapes of what it did."""
    base = base_scenario(workload)
    result = Exploration(seed=seed, candidate=candidate, workload=workload, shard=shard, guided=guided)
    guide = Guide() if guided else None
    channels, conditions = channels_of(base, candidate, seed)
    known = catalogue_plans(catalogue_dir(), workload) if corpus else []
    if kinds is not None:  # only the catalogue's plans made of the kinds asked for
        known = [p for p in known if all(e["kind"] in kinds for e in p.entries)]
    strategy = plans(channels, conditions, workload, corpus=known, kinds=kinds, actions=actions, max_entries=max_entries,
                     reached=guide.picks if guide is not None else None)
    originals = {p.key() for p in catalogue_plans(catalogue_dir(), workload)}
    started = time.monotonic()
    locked: list[str] = []  # the counter the first finding broke: shrinking keeps breaking it
    best: list[Finding] = []

    def breaks(plan: Plan, ran: tuple[dict[str, Any] | None] | None = None) -> bool:
        """Whether ``plan`` breaks the candidate (``ran``: its document, run elsewhere; else run here)."""
        elapsed = time.monotonic() - started
        if (not best and elapsed > budget_s) or elapsed > 2 * budget_s + 30:
            raise _OutOfTime()
        if plan.key() in originals:  # never a catalogue scenario as written: ``run`` is for those
            return False
        doc = run_plan(plan, candidate, seed, lines=lines and guided) if ran is None else ran[0]
        if guide is not None:
            guide.saw(plan, doc)
        finding = _judge(result, plan, doc)
        if finding is None or (locked and finding.counter != locked[0]):
            return False
        if not locked:
            locked.append(finding.counter)
            result.first_finding_s = round(time.monotonic() - started, 3)
            result.first_finding_plans = result.plans_run
        if not best or plan.size() < best[-1].plan.size():
            best.append(finding)
        return True

    config = settings(max_examples=max_plans, deadline=None, database=DirectoryBasedExampleDatabase(str(database))
                      if database is not None else None, suppress_health_check=list(HealthCheck),
                      phases=[Phase.reuse, Phase.generate, Phase.shrink])
    key = f"{candidate}/{workload}/{','.join(kinds or [])}/{max_entries}/{'corpus' if corpus else 'fresh'}/v2"
    remembered = _Remembered(database, key)
    try:
        systematic = [*_catalogue_pass(known, seed, kinds),  # the catalogue's plans elsewhere, then every single fault
                      *(scratch_plans(channels, conditions, workload, seed=seed, kinds=kinds, actions=actions)
                        if scratch else [])]
        share = first_pass_share([p for p in systematic if p.key() not in originals], shard)
        first = [p for p in [*remembered.plans(workload), *share] if p.key() not in originals][:max_plans]
        if jobs > 1 and len(first) > 1:
            with PlanPool(min(jobs, len(first)), candidate, seed, lines=lines and guided) as pool:
                for plan, doc in pool.ordered(first, lambda: budget_s - (time.monotonic() - started)):
                    if breaks(plan, (doc,)):
                        break
        else:
            for plan in first:
                if breaks(plan):
                    break
        if not best and result.plans_run < max_plans:
            config = settings(config, max_examples=max_plans - result.plans_run)
            with warnings.catch_warnings():  # Hypothesis may print the whole plan strategy (kilobytes) in a note
                warnings.filterwarnings("ignore", message="Generating overly large repr", category=HypothesisWarning)
                find(strategy, breaks, settings=config, random=search_random(seed, shard), database_key=key.encode())
    except (NoSuchExample, _OutOfTime, OutOfTime):
        pass
    if best:
        try:
            _minimize(best[-1].plan, breaks)
        except _OutOfTime:
            pass
        remembered.keep(best[-1].plan)
    if guide is not None:
        result.reached, result.reached_lines, result.reaching_plans = len(guide.seen), guide.lines(), len(guide.plans)
    result.finding = best[-1] if best else None
    result.elapsed_s = round(time.monotonic() - started, 3)
    return result


def _catalogue_pass(known: Sequence[Plan], seed: int, kinds: Sequence[str] | None) -> Iterator[Plan]:
    """A variation of each catalogue plan in a world it was not written for (its faults and actions as
    written), in an order drawn from the seed: every scenario of the catalogue gets its turn before
    the search draws at will (Hypothesis's draws favour some), and the first changes are the ones
    that keep what the plan was written to break."""
    rng = component_random(seed, "explore.catalogue")
    order = list(known)
    rng.shuffle(order)
    for plan in order:
        yield random_variation(plan, rng, kinds=kinds, gentle=True)


class _Remembered:
    """The shrunk findings of earlier searches with the same key, kept beside Hypothesis's own
    database (``findings.json``): a rerun tries them first, and so finds the same failure at once."""

    def __init__(self, database: Path | None, key: str) -> None:
        self._path = None if database is None else database / "findings.json"
        self._key = key

    def _load(self) -> dict[str, Any]:
        if self._path is None:
            return {}
        try:
            doc = json.loads(self._path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return doc if isinstance(doc, dict) else {}

    def plans(self, workload: str) -> list[Plan]:
        raw = self._load().get(self._key)
        if not isinstance(raw, dict):
            return []
        try:
            return [Plan(workload, tuple(raw["entries"]), dict(raw["world"]), raw.get("origin"),
                         float(raw.get("deadline_s", DEADLINE_S)))]
        except (KeyError, TypeError):
            return []

    def keep(self, plan: Plan) -> None:
        if self._path is None:
            return
        doc = self._load()
        doc[self._key] = {"entries": list(plan.entries), "world": dict(plan.world), "origin": plan.origin,
                          "deadline_s": plan.deadline_s}
        self._path.parent.mkdir(parents=True, exist_ok=True)
        self._path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _minimize(plan: Plan, breaks: Callable[[Plan], bool]) -> None:
    """Finish the shrink greedily (Hypothesis keeps the earliest, simplest-looking choices and may
    not try dropping an entry or a world option): take each one-step simplification that still
    breaks the same counter, until none does (``breaks`` records the smaller plan)."""
    changed = True
    while changed:
        changed = False
        for smaller in simpler(plan):
            if breaks(smaller):
                plan = smaller
                changed = True
                break


def _judge(result: Exploration, plan: Plan, doc: dict[str, Any] | None) -> Finding | None:
    """Account for ``plan``'s run (``doc``; None: no scenario file could state the plan) and say
    whether it is a finding."""
    if doc is None:
        result.invalid_plans += 1
        return None
    result.plans_run += 1
    if plan.origin is not None:
        result.variations[plan.origin] += 1
    for part, options in (("params", plan.world.get("params") or {}),
                          *((f"services.{k}", v) for k, v in (plan.world.get("services") or {}).items())):
        for name in options:
            result.worlds[f"{part}.{name}"] += 1
    if int(plan.world.get("workers", 1)) > 1:
        result.worlds["workers"] += 1
    for fault in doc["faults"]:
        result.kinds_tried[fault["kind"]] += 1
        result.kinds_fired[fault["kind"]] += fault.get("status") == "fired"
        if fault.get("channel") and not str(fault.get("channel", "")).startswith("the "):
            method, service, route = (str(fault["channel"]).split(" ", 2) + ["", ""])[:3]
            result.channels[f"{method} {service}{route}"] += 1
    error = doc.get("error")
    if error is not None:
        if error["kind"] == "harness":
            result.harness_errors.append(str(error["message"]))
            return None
        if error["kind"] == "setup" or _crashed_out(plan, str(error["message"])):
            # The plan needs what this candidate does not offer (webhooks), or its own crashes used up
            # every restart (a crash at each request, again and again): not a finding.
            result.invalid_plans += 1
            result.plans_run -= 1
            return None
        return Finding(plan, "candidate_error", str(error["message"]), doc["reproduce"])
    for c in doc["checkers"]:
        if c["verdict"] != "pass":
            result.at_risk[c["name"]] += 1
    broken = [c for c in doc["checkers"] if c["verdict"] == "fail" and c["name"] not in _NOT_FINDINGS
              and (c["class"] == "safety" or c["name"] in _LIVENESS_FINDINGS)]
    if not broken or any(f.get("status") == "unfired" for f in doc["faults"]):
        return None  # a plan with an entry that never fired tests nothing with it: a correct candidate gets unknown
    first = sorted(broken, key=lambda c: c["name"])[0]
    return Finding(plan, first["name"], first["because"], doc["reproduce"])


def _crashed_out(plan: Plan, message: str) -> bool:
    """Whether the candidate ran out of restarts under crashes the plan injects more than once."""
    repeated = any(e.get("kind") == "crash" and (e.get("at") or {}).get("times", 1) != 1 for e in plan.entries)
    return repeated and "still crashing" in message
