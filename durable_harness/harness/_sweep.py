"""The crash-point sweep: crash the candidate at every I/O point of a scenario, one run each.

A clean run of the base scenario lists its requests until the world heals (faults fire only
before); request k is the k-th I/O point. For each k
and each side of the request (``before`` delivery, ``after`` the service committed) a run crashes
the candidate there and restarts it on the same database. Runs are deterministic, so the run up to
the crash is the clean run: point k is the same I/O in both. Every point must end as the base
scenario does, with every safety counter at zero.

It deliberately does not choose what to check: each point is a normal scenario run (``_run``).
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from durable_harness.harness._errors import HarnessError
from durable_harness.harness._history import History
from durable_harness.harness._run import run_once
from durable_harness.harness._rundoc import write_run
from durable_harness.harness._webhook_delivery import PROCESS as WEBHOOKS
from durable_harness.harness.drivers import driver_kind
from durable_harness.harness.faults import Trigger
from durable_harness.harness.scenario import FaultSpec, Scenario

__all__ = ["POINTS", "SweepError", "SweepPoint", "clean_run_failed", "clean_scenario", "point_reproduce",
           "point_scenario", "points_of", "run_point", "sweep", "sweep_points"]

POINTS = ("before", "after")


@dataclasses.dataclass(frozen=True)
class SweepPoint:
    k: int
    point: str
    request: str  # "POST wordpress/wp/v2/posts" as seen in the clean run

    @property
    def label(self) -> str:
        return f"{self.k}:{self.point}"


def sweep_points(base: Scenario, candidate: str, seed: int | None = None,
                 out_dir: Path | None = None) -> tuple[list[SweepPoint], dict[str, Any]]:
    """Every (request, side) of a clean run of ``base``, and that clean run's document (written to
    ``out_dir`` when given)."""
    clean, history = run_once(clean_scenario(base), candidate, seed, out_dir)
    clean_run_failed(clean, history)
    return points_of(history), clean


class SweepError(HarnessError):
    """An error of the harness in a sweep after its clean run: that run's ``history`` goes with it,
    so that the report keeps the clean run's history beside the error (its file is written already)."""

    def __init__(self, message: str, history: History) -> None:
        super().__init__(message)
        self.history = history


def clean_run_failed(clean: dict[str, Any], history: History) -> None:
    """Raise the harness's error if the clean run ended in one: its history lists the points only up
    to where it stopped, so a sweep of those would look complete and is not. (An error of the
    candidate's stays the candidate's: its points say it, or the clean run does if it has none.)"""
    error = clean.get("error") or {}
    if error.get("kind") == "harness":
        raise SweepError(f"its clean run ended in an error of the harness ({error.get('message')}), so the points "
                         "it would have listed past that are unknown", history)


def clean_scenario(base: Scenario) -> Scenario:
    """The run a sweep crashes: ``base`` without its faults."""
    return dataclasses.replace(base, faults=(), sweep=None)


def points_of(history: History) -> list[SweepPoint]:
    """Every (request, side) of a clean run's history: the requests made until the world healed."""
    heal = next((e.index for e in history.of_type("phase") if e.data.get("phase") == "heal"), len(history))
    requests = [f"{e.data.get('method')} {e.data.get('service')}{e.data.get('route')}" for e in history.of_type("invoke")
                if e.process != WEBHOOKS and e.index < heal]  # the candidate's I/O while faults may fire
    return [SweepPoint(k, p, request) for k, request in enumerate(requests, 1) for p in POINTS]


def point_scenario(base: Scenario, point: SweepPoint, real_time: bool = False) -> Scenario:
    """``base`` with one crash at ``point`` (and no other fault). In ``real_time`` (a candidate run
    as a process) a run's requests vary a little in number (how often a job awaiting approval
    polls), so the point's run may end its chaos before its k-th request: that point is *not
    reached* (coverage: the run was a clean run of the candidate, judged as one), never unknown.
    In-process the run up to the crash is the clean run, so a point it did not reach is unfired."""
    crash = FaultSpec(kind="crash", at=Trigger("*", "*", "*", nth=point.k), params={"point": point.point},
                      reach_required=not real_time)
    return dataclasses.replace(base, id=f"{base.id}-crash-{point.k}-{point.point}", faults=(crash,), sweep=None,
                               run_of=base.run_name)


def run_point(base: Scenario, point: SweepPoint, candidate: str, seed: int | None = None,
              out_dir: Path | None = None) -> dict[str, Any]:
    """One point's run; its reproduce command reruns just this point."""
    scenario = point_scenario(base, point, real_time=driver_kind(candidate).real_time)
    seed = base.default_seed if seed is None else seed  # the base's seed: the run up to the crash is the clean run
    folder = out_dir / scenario.id if out_dir is not None else None
    doc, _history = run_once(scenario, candidate, seed, folder)
    doc["reproduce"] = point_reproduce(base, point, candidate, seed)
    if folder is not None:
        write_run(folder, doc)
    return doc


def point_reproduce(base: Scenario, point: SweepPoint, candidate: str, seed: int) -> str:
    """The command that runs just this point again."""
    return " ".join(["durable-harness", "sweep", "--candidate", shlex.quote(candidate), "--scenario",
                     shlex.quote(str(base.source)), "--seed", str(seed), "--point", shlex.quote(point.label)])


def sweep(base: Scenario, candidate: str, seed: int | None = None, out_dir: Path | None = None) -> Iterator[tuple[SweepPoint, dict[str, Any]]]:
    points, _clean = sweep_points(base, candidate, seed)
    for point in points:
        yield point, run_point(base, point, candidate, seed, out_dir)
