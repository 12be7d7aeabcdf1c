"""The registry of workloads: name -> ``Workload``. A duplicate name fails at import.

A workload is a kind of job. Its record says everything the engine and the checkers need of it:
the parameters a scenario may set (``params_schema``), the job it submits (``build_job``), the
scripted agent in the sessions fake (``brain``), the business roles of a job (``roles``), its phase
vocabulary in order (``phases``: a phase may only move forward), the remote effects ground truth
shows for each role (``effects``) and which ledger operations create them (``creates``), the
outcome the world shows at the end (``outcome``), what a
reported checkpoint needs to be backed by the world (``checkpoint_problems``), and the kinds of
effect it maps (``effect_kinds``: every one is judged "never twice"). Every core checker applies to
every workload; a workload cannot drop one. Adding a workload is one module plus its registration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from durable_harness.harness._registry import Registry

__all__ = ["CallTruth", "Effect", "Outcome", "Workload", "cancelled", "get_workload", "group_by_role", "people_of", "register_workload",
           "waiting_for_credentials", "workload_names"]

Json = Mapping[str, Any]


@dataclass(frozen=True)
class Effect:
    """One remote side effect of a job that ground truth shows (a post, an upload), by business role."""

    kind: str  # "post" | "media": what the service holds
    service: str  # the service holding it ("wordpress")
    route: str  # the collection its creation was posted to ("/wp/v2/posts"), for witnesses
    job_id: str
    task_version: str
    role: str  # "article", "image:1"
    id: int
    created_at: float
    deleted_at: float | None
    operation_key: str | None
    record: Json

    def alive_at(self, t: float) -> bool:
        return self.created_at <= t and (self.deleted_at is None or self.deleted_at > t)


@dataclass(frozen=True)
class CallTruth:
    """What ground truth knows of a function call from its tool name and arguments alone, as an agent
    that is not the harness's own issues it (a real sessions API): the business role it does, the
    SHA-256 of the business bytes inside it, and the watermarks it carries."""

    role: str
    payload_sha256: tuple[str, ...] = ()
    watermarks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """The outcome the world shows for a job, and why (one line)."""

    outcome: str
    because: str


@dataclass(frozen=True)
class Workload:
    name: str
    params_schema: Json  # JSON Schema properties of ``workload.params``
    build_job: Callable[[str, str, Json], dict[str, Any]]  # (job_id, task_version, params) -> Job
    brain: Callable[[Mapping[tuple[str, str], Json], int], Any]  # (jobs, seed) -> the sessions fake's BrainFactory
    roles: Callable[[Json], tuple[str, ...]]  # the business roles of a job, in the order the agent works
    phases: tuple[str, ...]  # the phase vocabulary, in order
    effects: Callable[[Json], list[Effect]]  # every job's remote effects in ground truth
    outcome: Callable[[Json, Json], Outcome]  # (truth, job) -> what the world shows at the end
    # (checkpoint, truth, job, the report's history entry, the history) -> why it is not backed
    checkpoint_problems: Callable[[Json, Json, Json, Any, Any], list[str]]
    creates: Mapping[str, str] = field(default_factory=dict)  # ledger kind (the tool) -> the effect kind it creates
    # Conditions of the world fault and action triggers may name (``while:``, ``when:``): name ->
    # (truth, job, argument) -> whether it holds.
    conditions: Mapping[str, Callable[[Json, Json, str | None], bool]] = field(default_factory=dict)
    # The kinds of effect ``effects`` may show ("post", "media"): what "never twice" judges for it.
    # None: the kinds its ledger operations create (``creates``).
    kinds: tuple[str, ...] | None = None
    # What the world shows when a correct control plane runs the job and nobody acts on it (no
    # approval, no cancel, no revocation): the outcome a scenario may hold a candidate to when the
    # people its plan schedules never came to act (``abandoned_jobs``). None: no such promise.
    clean_outcome: str | None = None
    # (tool name, arguments) -> what ground truth knows of a function call of this workload's, read
    # from the call itself (a sessions API that is not the fake: ``--service openai=URL``), or None
    # for a call of no business role. None: the workload's truth needs the fake's own agent.
    call_truth: Callable[[str, Json], CallTruth | None] | None = None

    @property
    def effect_kinds(self) -> tuple[str, ...]:
        return self.kinds if self.kinds is not None else tuple(dict.fromkeys(self.creates.values()))

    def job_effects(self, truth: Json, job: Json) -> list[Effect]:
        key = (str(job["job_id"]), str(job["task_version"]))
        return [e for e in self.effects(truth) if (e.job_id, e.task_version) == key]


_WORKLOADS: Registry[Workload] = Registry("workload")


def register_workload(workload: Workload) -> Workload:
    return _WORKLOADS.add(workload.name, workload)


def workload_names() -> list[str]:
    return _WORKLOADS.names()


def get_workload(name: str) -> Workload:
    return _WORKLOADS.get(name)


def group_by_role(effects: Sequence[Effect], kind: str) -> dict[tuple[str, str, str], list[Effect]]:
    out: dict[tuple[str, str, str], list[Effect]] = {}
    for e in effects:
        if e.kind == kind:
            out.setdefault((e.job_id, e.task_version, e.role), []).append(e)
    return {k: sorted(v, key=lambda e: e.id) for k, v in sorted(out.items())}


def people_of(truth: Mapping[str, Any], job: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """What people did to this job (the ground truth's ``people``, each action that took effect)."""
    return [p for p in truth.get("people") or [] if str(p.get("job_id", job["job_id"])) == str(job["job_id"])]


def cancelled(truth: Mapping[str, Any], job: Mapping[str, Any]) -> Outcome | None:
    """``cancelled`` when the user cancelled the job and the candidate acknowledged it (whatever was
    done before stays done); None otherwise. The same for every workload."""
    cancel = next((p for p in people_of(truth, job) if p.get("kind") == "cancel" and p.get("acknowledged")), None)
    if cancel is None:
        return None
    return Outcome("cancelled", f"the user cancelled the job at t={cancel.get('at_s')}s and the candidate acknowledged it")


def waiting_for_credentials(work: Outcome, truth: Mapping[str, Any], job: Mapping[str, Any],
                            services: Sequence[str] | None = None) -> Outcome:
    """Unfinished work whose credentials an operator revoked waits for a human (``needs_human``):
    never done around them. The same for every workload; other outcomes are ``work`` as it is.
    ``services``: the services whose credentials the job's work needs (None: every one); a revoked
    credential of a service the work never needs leaves the outcome to the work."""
    revoked = [p for p in people_of(truth, job) if p.get("kind") == "revoke_credentials"
               and (services is None or str(p.get("service")) in services)]
    if work.outcome != "failed" or not revoked:
        return work
    services = ", ".join(sorted({str(p.get("service")) for p in revoked}))
    return Outcome("needs_human", f"the work is unfinished ({work.because}) and the {services} credentials were revoked: "
                                  "only a human can give new ones")
