"""The coding workload: the agent writes code and runs tests in its sandbox, then asks the control
plane to deliver a digest-checked report.

It builds the job a scenario submits and maps ground truth back to it: the sessions fake
registers each delivered report's digest as a payload (``role: "report"``) with the sandbox
``reset_count`` the tests ran at, and the executor records every reset with its time.

The world's outcome: ``completed`` when the control plane accepted (answered with success) a
``deliver_result`` whose tests passed in the sandbox as it was when the delivery was accepted (a
reset at that very instant not counted: a check in that instant may have come first); a
stale or failed delivery, or none, is ``failed``. As in every workload, a cancellation the candidate
acknowledged makes it ``cancelled``, and unfinished work whose credentials were revoked
``needs_human``.

It deliberately does not script the agent (``durable_harness.fakes.openai_agents.brains.coding`` does).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from durable_harness.harness.workloads._registry import (
    Effect, Outcome, Workload, cancelled, register_workload, waiting_for_credentials,
)

__all__ = ["CODING_TOOLS", "PHASES", "WORKLOAD", "artifact_sha_at", "build_coding_job", "report_payloads", "reset_count_at"]

CODING_TOOLS = ("deliver_result",)
PHASES = ("accepted", "session_started", "delivered")

DEFAULT_INPUT = {"module": "slugify", "functions": ["slugify", "dedupe"], "report_path": "report.md", "preamble_items": 0}

PARAMS_SCHEMA = {
    "module": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
    "functions": {"type": "array", "minItems": 1, "maxItems": 20, "uniqueItems": True,
                  "items": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}},
    "report_path": {"type": "string", "minLength": 1},
    "preamble_items": {"type": "integer", "minimum": 0, "maximum": 1000},
}

Json = Mapping[str, Any]


def build_coding_job(job_id: str, task_version: str, params: Json) -> dict[str, Any]:
    return {
        "job_id": job_id,
        "task_version": task_version,
        "tenant": "acme-platform",
        "workload": "coding",
        "input": {**DEFAULT_INPUT, **params},
        "allowed_tools": list(CODING_TOOLS),
        "budget": {"max_resume_attempts": 5, "max_tool_calls": 10},
    }


def report_payloads(openai_truth: Json, job_id: str, task_version: str) -> dict[str, Json]:
    """Digest -> facts of every report the agent delivered for the job version."""
    return {sha: p for sha, p in (openai_truth.get("payloads") or {}).items()
            if p.get("role") == "report" and (str(p.get("job_id")), str(p.get("task_version"))) == (job_id, task_version)}


def reset_count_at(openai_truth: Json, environment_id: str, t: float, *, before: bool = False) -> int | None:
    """The sandbox's ``reset_count`` at virtual time ``t`` (None: no such environment); ``before``:
    just before ``t`` (a reset at the very instant is not counted: a check made in that instant
    may have come first)."""
    for env in (openai_truth.get("executor") or {}).get("environments", []):
        if env.get("id") == environment_id:
            counts = [int(h["reset_count"]) for h in env.get("status_history", [])
                      if float(h["at_s"]) < t or (not before and float(h["at_s"]) == t)]
            return counts[-1] if counts else 0
    return None


def _seen_reset(history: Any, environment_id: str, before: int) -> int | None:
    """The sandbox's reset count as the candidate last saw it: at its last answered listing of the
    sandbox's files before history entry ``before`` (None: it never looked)."""
    route = f"/agents/environments/{environment_id}/files"
    last = None
    for invoke, done in history.operations():
        if invoke.index >= before:
            break
        if invoke.data.get("route") == route and done is not None and done.type == "ok":
            last = invoke.index
    if last is None:
        return None
    count = 0
    for e in history.of_type("fault"):
        evidence = e.data.get("evidence")
        if (e.index < last and isinstance(evidence, Mapping) and evidence.get("effect") == "replace_executor"
                and evidence.get("environment_id") == environment_id):
            count = int(evidence.get("reset_count") or count)
    return count


def artifact_sha_at(openai_truth: Json, artifact_id: str, t: float) -> str | None:
    """The digest of what artifact ``artifact_id`` held just before ``t`` (a change at the very
    instant ``t`` is not counted: a check made in that instant may have come first)."""
    for artifact in openai_truth.get("artifacts", []):
        if artifact.get("id") == artifact_id:
            held = [d["sha256"] for d in artifact.get("digests") or [] if float(d["at_s"]) < t or d is artifact["digests"][0]]
            return held[-1] if held else None
    return None


def _deliveries(truth: Json, job: Json, *, accepted: bool = True) -> list[Json]:
    """The job version's ``deliver_result`` calls the control plane accepted (all of them, when not
    ``accepted``), oldest first."""
    key = (str(job["job_id"]), str(job["task_version"]))
    calls = (truth.get("openai") or {}).get("tool_calls", [])
    return [c for c in calls if c.get("name") == "deliver_result" and (c.get("success") is True or not accepted)
            and (str(c.get("job_id")), str(c.get("task_version"))) == key]


def _stale(truth: Json, call: Json) -> str | None:
    """Why an accepted delivery was not good when it was accepted (None: it was)."""
    facts = call.get("facts") or {}
    if not facts.get("tests_passed"):
        return "its tests did not pass"
    oa = truth.get("openai") or {}
    claimed = next((sha for sha, p in (oa.get("payloads") or {}).items() if p.get("artifact_id") == facts.get("artifact_id")
                    and p.get("role") == "report"), None)
    sent = float(call.get("sent_at", call.get("answered_at")) or 0.0)  # as it was when the answer was sent
    held = artifact_sha_at(oa, str(facts.get("artifact_id")), sent)
    if held is not None and claimed is not None and held != claimed:
        return f"artifact {facts.get('artifact_id')} did not hold the report the agent made when it was accepted (its bytes changed)"
    now = reset_count_at(oa, str(facts.get("environment_id")), sent, before=True)
    ran = facts.get("tests_reset_count")
    if now is not None and ran is not None and int(ran) < now:
        return f"its tests ran at sandbox reset {ran}, but the sandbox was at reset {now} when it was accepted"
    return None


def outcome(truth: Json, job: Json) -> Outcome:
    stopped = cancelled(truth, job)
    if stopped is not None:
        return stopped
    return waiting_for_credentials(_work(truth, job), truth, job, services=("openai",))  # no other service's work


def _work(truth: Json, job: Json) -> Outcome:
    accepted = _deliveries(truth, job)
    good = [c for c in accepted if _stale(truth, c) is None]
    if good:
        return Outcome("completed", f"the report of call {good[-1].get('call_id')} was delivered with passing, "
                                    "current tests")
    if accepted:
        return Outcome("failed", f"the only accepted deliveries were stale: {_stale(truth, accepted[-1])}")
    return Outcome("failed", "no report was delivered: the work was not done")


def checkpoint_problems(checkpoint: Json, truth: Json, job: Json, entry: Any, history: Any) -> list[str]:
    """Why a checkpoint reported at ``entry`` is not backed: a report must be one the agent made for
    this job, the candidate must have read its bytes and found that digest before it claimed it (a
    check by size, or no check, is not backed), and its tests must be from the sandbox as it was."""
    t = float(entry.time_s)
    oa = truth.get("openai") or {}
    reports = report_payloads(oa, str(job["job_id"]), str(job["task_version"]))
    out = []
    for artifact in checkpoint.get("artifacts") or []:
        if not isinstance(artifact, Mapping) or artifact.get("role") != "report":
            continue
        sha = str(artifact.get("sha256"))
        first = reports.get(sha)
        if first is None:
            out.append(f"report {sha[:12]} is no artifact the agent delivered for this job")
            continue
        # The same report may have been delivered in several artifacts (one corrupted in storage and
        # refused, then captured again): backed by any of them that the candidate read with that digest.
        delivered = _delivered_as(_deliveries(truth, job, accepted=False), first, str(artifact.get("uri") or ""))
        reads = [(f, _last_read(history, str(f.get("artifact_id")), int(entry.index))) for f in delivered]
        backed = [f for f, read in reads if read == sha]
        facts: Json = backed[0] if backed else reads[0][0]
        if not backed:
            read = reads[0][1]
            out.append(f"report {sha[:12]} was not what the candidate read of artifact {facts.get('artifact_id')} "
                       + ("(it never read it)" if read is None else f"(it read bytes hashing to {read[:12]})"))
        environment = str(facts.get("environment_id"))
        seen = _seen_reset(history, environment, int(entry.index))  # backed if true when the candidate last looked
        now = seen if seen is not None else reset_count_at(oa, environment, t)
        ran = facts.get("tests_reset_count")
        if now is not None and ran is not None and int(ran) < now:
            when = "when the candidate last listed it" if seen is not None else f"at t={t:g}s"
            out.append(f"report {sha[:12]} carries tests run at sandbox reset {ran}, but the sandbox was at reset {now} "
                       f"{when}: a result from before the executor was replaced")
    if checkpoint.get("phase") == "delivered" and not any(
            float(c.get("answered_at") or 0.0) <= t for c in _deliveries(truth, job)):
        out.append(f"phase 'delivered' claimed, but no delivery was accepted by t={t:g}s")
    return out


def _delivered_as(deliveries: list[Json], first: Json, uri: str) -> list[Json]:
    """The facts of every delivery of a report (by the artifact it named), the artifact the
    candidate's ``uri`` names first, then the first delivery of that digest, then the others."""
    same: list[Json] = [dict(c.get("facts") or {}) for c in deliveries
            if (c.get("facts") or {}).get("path") == first.get("path") and (c.get("facts") or {}).get("artifact_id")]
    named = [f for f in same if uri.endswith("/" + str(f.get("artifact_id")))]
    return [*named, dict(first), *(f for f in same if f not in named and f.get("artifact_id") != first.get("artifact_id"))]


def _last_read(history: Any, artifact_id: str, before: int) -> str | None:
    """The digest of the bytes the candidate last read of ``artifact_id`` before entry ``before``."""
    route = f"/artifacts/{artifact_id}/content"
    found = None
    for invoke, done in history.operations():
        if invoke.index >= before:
            break
        if str(invoke.data.get("route", "")).endswith(route) and done is not None and done.type == "ok":
            body = done.data.get("body")
            if isinstance(body, Mapping) and body.get("sha256"):
                found = str(body["sha256"])
    return found


def _no_effects(truth: Json) -> list[Effect]:
    return []  # a delivery is an answer to the agent, not an object at a service


def roles(job: Json) -> tuple[str, ...]:
    return ("report",)


def _brain(jobs: Mapping[tuple[str, str], Mapping[str, Any]], seed: int) -> Any:
    """The scripted agent (imported when a run builds the sessions fake, not by list/validate)."""
    from durable_harness.fakes.openai_agents.brains.coding import CodingBrain

    return CodingBrain.factory(jobs, seed)


WORKLOAD = register_workload(Workload(
    name="coding", params_schema=PARAMS_SCHEMA, build_job=build_coding_job, brain=_brain, roles=roles,
    phases=PHASES, effects=_no_effects, outcome=outcome, checkpoint_problems=checkpoint_problems,
    kinds=(),  # its effects are in the sandbox and the session, judged by the core checkers
    clean_outcome="completed",  # the checked report is delivered
))
