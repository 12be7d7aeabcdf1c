"""stuck jobs (liveness): a job that is neither finished nor waiting for a human once the world
has healed and the candidate has had its bounded time to settle."""

from __future__ import annotations

from durable_harness.harness.checkers._base import CheckInput, Finding, checker, witness

SETTLED = ("completed", "failed", "unknown", "needs_human", "cancelled")


@checker("stuck_jobs", "liveness", rank=90)
def check(inp: CheckInput) -> Finding:
    job = f"{inp.job['job_id']} v{inp.job['task_version']}"
    if inp.claims is None:
        return Finding("fail", 1, f"{job}: the candidate gave no report at the end")
    outcome = inp.claims.get("outcome")
    if outcome in SETTLED:
        return Finding("pass", 0, f"{job} settled as {outcome!r}")
    reports = inp.history.of_type("report")
    last = reports[-1] if reports else None
    phases = inp.history.of_type("phase")
    healed = next((p.time_s for p in phases if p.data.get("phase") == "heal"), None)
    wits = (witness(last, f"last report: outcome {outcome!r}, phase {(inp.claims.get('checkpoint') or {}).get('phase')!r}"),) if last else ()
    since = f" (healed at t={healed:g}s, still {outcome!r} at the end)" if healed is not None else ""
    return Finding("fail", 1, f"{job} is stuck: outcome {outcome!r} after quiesce{since}", wits)
