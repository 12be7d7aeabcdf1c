"""Plans run in worker processes, their documents handed back in the order the plans were given.

The explorer's first pass (a variation of every catalogue scenario) is a list of independent runs:
with ``jobs`` above one they run side by side in worker processes started by a fork server (each
starts its own candidate zygote once), and come back in the list's order, so what the search
decides from them does not depend on which finished first. The time budget is the caller's: a
document not back by then is not waited for.

What it deliberately does not do: judge (the explorer does, in its own process) or draw plans.
"""

from __future__ import annotations

import concurrent.futures
import json
import multiprocessing
import signal
from collections.abc import Iterator, Sequence
from typing import Any

from durable_harness.harness.explore._plans import Plan

__all__ = ["OutOfTime", "PlanPool", "run_plan"]


class OutOfTime(Exception):
    """The budget ran out while documents were still on their way."""


def run_plan(plan: Plan, candidate: str, seed: int, *, lines: bool = True) -> dict[str, Any] | None:
    """The run document of ``plan`` against ``candidate``, or None for a plan no scenario file could
    state (the schema refuses it). The document carries what the run reached (``reach``: the lines
    of the candidate's code, unless ``lines`` is False, and the shapes of what it did, ``_reach``),
    sorted; it is the explorer's, never written to a report."""
    from durable_harness.harness._run import run_once
    from durable_harness.harness.explore._plans import plan_scenario
    from durable_harness.harness.explore._reach import history_shapes
    from durable_harness.harness.scenario import ScenarioError

    try:
        scenario = plan_scenario(plan, f"explore-{plan.workload}")
    except ScenarioError:
        return None
    reached: set[str] = set()
    doc, history = run_once(scenario, candidate, seed, reach=reached if lines else None)
    doc["reach"] = sorted(reached | history_shapes(history))
    return doc


def _run_json(text: str, candidate: str, seed: int, lines: bool) -> dict[str, Any] | None:
    raw = json.loads(text)
    plan = Plan(raw["workload"], tuple(raw["entries"]), raw["world"], raw["origin"], float(raw["deadline_s"]))
    return run_plan(plan, candidate, seed, lines=lines)


def _quiet() -> None:
    """A worker leaves Ctrl-C to the explorer, which stops it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class PlanPool:
    """``jobs`` worker processes running plans against one candidate."""

    def __init__(self, jobs: int, candidate: str, seed: int, *, lines: bool = True) -> None:
        self._pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=jobs, mp_context=multiprocessing.get_context("forkserver"), initializer=_quiet)
        self._candidate, self._seed, self._lines = candidate, seed, lines

    def ordered(self, plans: Sequence[Plan], time_left: Any) -> Iterator[tuple[Plan, dict[str, Any] | None]]:
        """(plan, its document) in the order of ``plans``; ``time_left()`` gives the seconds the caller
        still has (OutOfTime when a document is not back in them)."""
        futures = [self._pool.submit(_run_json, json.dumps({
            "workload": p.workload, "entries": list(p.entries), "world": dict(p.world), "origin": p.origin,
            "deadline_s": p.deadline_s}), self._candidate, self._seed, self._lines) for p in plans]
        try:
            for plan, future in zip(plans, futures):
                try:
                    doc = future.result(timeout=max(0.0, float(time_left())))
                except concurrent.futures.TimeoutError:
                    raise OutOfTime() from None
                yield plan, doc
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> PlanPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
