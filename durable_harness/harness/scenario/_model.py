"""Scenario records: what a validated scenario file says, as frozen dataclasses.

Only the loader builds these (from YAML that passed the schema); the run engine reads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from durable_harness.harness._seeds import scenario_seed
from durable_harness.harness.faults import Trigger

__all__ = ["ActionSpec", "Expect", "FaultSpec", "Scenario", "WorkloadSpec"]


@dataclass(frozen=True)
class WorkloadSpec:
    kind: str
    job_id: str
    task_version: str
    params: Mapping[str, Any] = field(default_factory=dict)
    allowed_tools: tuple[str, ...] | None = None  # None: the workload's whole tool set


@dataclass(frozen=True)
class FaultSpec:
    kind: str
    at: Trigger
    params: Mapping[str, Any] = field(default_factory=dict)
    # The trigger's n-th request must be reached: a fault that was not is *unfired* (unknown), not
    # *not reached* (coverage). Never from a file: an in-process sweep's crash point, whose run up to
    # the crash is the clean run it was drawn from (in real time a run may make fewer requests).
    reach_required: bool = False


@dataclass(frozen=True)
class ActionSpec:
    """A person's action: one trigger of three (``at`` a request, ``when`` a condition, ``at_s`` a time)."""

    kind: str
    at: Trigger | None = None
    when: str | None = None
    delay_s: float = 0.0
    at_s: float | None = None
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Expect:
    outcome: str  # what the world shows when the candidate is correct, or "from_world"
    max_steps: int = 500
    deadline_s: float = 3600.0
    max_redone_steps: int = 0
    quiesce_s: float = 300.0  # after the heal, the candidate settles until max(deadline_s, heal + quiesce_s)


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    covers: str
    workload: WorkloadSpec
    faults: tuple[FaultSpec, ...]
    expect: Expect
    must_catch: tuple[str, ...]
    source: Path
    seed: int | None = None
    needs: tuple[str, ...] = ()
    services: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # options by service name
    actions: tuple[ActionSpec, ...] = ()
    sweep: str | None = None  # "crash_points": one run per I/O point, folded into this scenario
    workers: int = 1  # candidate instances working at once on one database (worker-1, worker-2, ...)
    run_of: str | None = None  # a variation of another scenario's run (a sweep's crash point): names the run as it

    @property
    def run_name(self) -> str:
        """What names a run of this scenario (``env.run_id`` is it and the seed): a crash point of a
        sweep is its base's run, crashed once, and is named as that run."""
        return self.run_of or self.id

    @property
    def default_seed(self) -> int:
        return self.seed if self.seed is not None else scenario_seed(self.id)
