"""What every workload brain shares about its job: the common fields, the factory, the random streams.

A job is a mapping from the scenario: ``workload``, ``job_id``, ``task_version`` and an ``input``
mapping. ``parse_header`` validates the first three and that ``input`` is a mapping;
``job_factory`` builds the ``BrainFactory`` that picks a session's job by its ``job_id`` /
``task_version`` metadata (a known job's id with a run's suffix, ``job-baseline-3f9a1c``, is that
job under that id; a session it cannot place gets a brain whose first turn fails, saying why); ``job_rng`` is the random stream of one purpose of one job under one seed.

What it deliberately does not do: validate a workload's ``input`` fields (each brain knows its
own), or hold session state.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from durable_harness.fakes.openai_agents.brains._protocol import Brain, BrainFactory, Commentary, Fail, Output, Step

__all__ = ["JobHeader", "bounded_int", "job_factory", "job_rng", "namespaced_base", "parse_header"]


class _Job(Protocol):
    """A parsed job: what the factory and the random streams key on."""

    @property
    def job_id(self) -> str: ...

    @property
    def task_version(self) -> str: ...


@dataclass(frozen=True)
class JobHeader:
    """The validated common part of a job; ``where`` prefixes every error about it."""

    where: str
    job_id: str
    task_version: str
    input: Mapping[str, Any]


def parse_header(job: Mapping[str, Any], *, workload: str, brain: str, input_fields: str) -> JobHeader:
    """Check ``workload``, ``job_id``, ``task_version`` and that ``input`` is a mapping.

    ``brain`` and ``input_fields`` only word the errors (``input_fields`` lists what ``input``
    must hold, e.g. ``"topic, title, focus_keyword"``).
    """
    where = f"job {job.get('job_id')!r}"
    if job.get("workload") != workload:
        raise ValueError(f"{where}: workload={job.get('workload')!r} must be {workload!r} for {brain}")
    job_id, version = job.get("job_id"), job.get("task_version")
    if not isinstance(job_id, str) or not job_id:
        raise ValueError(f"{where}: job_id={job_id!r} must be a non-empty string")
    if not isinstance(version, (str, int)) or isinstance(version, bool) or str(version) == "":
        raise ValueError(f"{where}: task_version={version!r} must be a non-empty string or an int")
    raw = job.get("input")
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where}: input={raw!r} must be a mapping with {input_fields}")
    return JobHeader(where=where, job_id=job_id, task_version=str(version), input=raw)


def bounded_int(value: Any, where: str, maximum: int) -> int:
    """``value`` if it is an int (not a bool) in ``0..maximum``; ``where`` names it in the error."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= maximum:
        raise ValueError(f"{where}={value!r} must be an int between 0 and {maximum}")
    return value


def job_factory(workload: str, parse: Callable[[Mapping[str, Any]], _Job],
                build: Callable[[Mapping[str, Any], int], Brain],
                jobs: Mapping[tuple[str, str], Mapping[str, Any]], seed: int) -> BrainFactory:
    """A ``BrainFactory`` that picks the job by the session's ``job_id``/``task_version`` metadata.

    Every job is parsed now, so a bad one fails here rather than at a session's first message;
    ``jobs`` must be keyed by each job's own ``(job_id, task_version)``.
    """
    parsed: dict[tuple[str, str], Mapping[str, Any]] = {}
    for key, job in jobs.items():
        spec = parse(job)
        if tuple(key) != (spec.job_id, spec.task_version):
            raise ValueError(f"jobs key {key!r} does not match the job's (job_id, task_version)="
                             f"{(spec.job_id, spec.task_version)!r}")
        parsed[(spec.job_id, spec.task_version)] = job

    def make(metadata: Mapping[str, str], first_input_text: str) -> Brain:
        wanted_id, wanted_version = metadata.get("job_id"), metadata.get("task_version")
        matches = [job for (job_id, version), job in parsed.items()
                   if wanted_id in (None, job_id) and wanted_version in (None, version)]
        if len(matches) == 1:
            return build(matches[0], seed)
        base = namespaced_base(wanted_id or "")
        if not matches and base is not None:  # a run's own id for a known job: the job, under that id
            known = [job for (job_id, version), job in parsed.items()
                     if job_id == base and wanted_version in (None, version)]
            if len(known) == 1:
                return build({**known[0], "job_id": wanted_id}, seed)
        return _Misconfigured(
            f"Cannot tell which {workload} job this session is for: metadata job_id={wanted_id!r}, "
            f"task_version={wanted_version!r} match {len(matches)} of {len(parsed)} known jobs. "
            "Create the session with metadata {'job_id': ..., 'task_version': ...}.")

    return make


# A job's id with a run's suffix (``job-baseline-3f9a1c``): what a harness in front of this fake as
# a real service gives each run, so that runs side by side never meet (``services._upstream``).
_NAMESPACED = re.compile(r"(.+)-[0-9a-f]{6}")


def namespaced_base(job_id: str) -> str | None:
    """The job's own id if ``job_id`` is one with a run's suffix (``job-baseline-3f9a1c``), else None."""
    match = _NAMESPACED.fullmatch(job_id)
    return match.group(1) if match else None


def job_rng(job: _Job, seed: int, purpose: str) -> random.Random:
    """The random stream of ``purpose`` for ``job`` under ``seed``: the same inputs, the same stream."""
    digest = hashlib.sha256(f"{job.job_id}/{job.task_version}/{seed}/{purpose}".encode())
    return random.Random(int.from_bytes(digest.digest()[:8], "big"))


class _Misconfigured:
    """The brain of a session whose job cannot be identified: its first turn fails, clearly."""

    def __init__(self, message: str) -> None:
        self.message = message

    def think(self, step: Step) -> Sequence[Output]:
        return [Commentary(self.message), Fail("invalid_request", self.message)]
