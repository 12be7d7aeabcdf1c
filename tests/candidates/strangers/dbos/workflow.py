"""The job version as a DBOS workflow: observe, act through one step, wait durably, repeat.

The workflow body is deterministic: its control flow depends only on the results of its steps
(replayed from the database after a restart) and its waits are ``DBOS.sleep`` (durable: a
recovered sleep sleeps only what is left). Waits are written in scenario seconds and scaled to
real time. A workflow ends when its version reaches a final outcome; a finished article keeps
looking for a publish approval until it is published, cancelled or superseded.
"""

from __future__ import annotations

from typing import Any

from dbos import DBOS

from runtime import rt
from steps import (approval_step, finish_step, observe_step, result_step, resume_step,
                   session_step, settle_step, tool_step)

APPROVAL_POLL_S = 10.0


def workflow_id(job_id: str, version: str) -> str:
    return f"dh:{job_id}:{version}"


def _wait(scenario_seconds: float) -> None:
    DBOS.sleep(rt().settings.real(scenario_seconds))


def _stop(job_id: str, version: str, why: str) -> str:
    """Settle what was in flight (reads only), cancel the turn, record the outcome."""
    while True:
        settled = settle_step(job_id, version)
        if settled.get("state") == "settled":
            break
        _wait(5.0)
    return str(finish_step(job_id, version, why).get("outcome", "cancelled"))


def _act(job_id: str, version: str, plan: dict[str, Any]) -> str | None:
    """Carry out one decision; a returned string is the version's final outcome."""
    do = plan.get("do")
    if do == "end":
        return str(plan.get("outcome"))
    if do in ("cancel", "supersede"):
        return _stop(job_id, version, str(do))
    if do == "finish":
        return str(finish_step(job_id, version, str(plan.get("why"))).get("outcome"))
    if do == "wait":
        _wait(float(plan.get("s", 2.0)))
    elif do == "session":
        out = session_step(job_id, version)
        if "finish" in out:
            return str(finish_step(job_id, version, str(out["finish"])).get("outcome"))
        if "wait" in out or "error" in out:
            _wait(float(out.get("wait", 2.0)))
    elif do == "call":
        result = tool_step(job_id, version, plan["call"], plan["session"], plan.get("env"))
        if result.get("kind") == "answer":
            sent = result_step(job_id, version, plan["session"], plan["call"], result)
            if sent.get("state") != "sent":
                _wait(1.0)
        elif result.get("kind") == "later" or "error" in result:
            _wait(10.0)
        elif result.get("reason") in ("fenced",) or str(result.get("reason", "")).startswith("lease"):
            _wait(rt().settings.lease_ttl_s / 3)
    elif do == "resume":
        out = resume_step(job_id, version, plan["session"], plan["text"], int(plan["turns"]))
        if out.get("state") != "sent":
            _wait(2.0)
    elif do == "approval":
        out = approval_step(job_id, version)
        if out.get("state") == "published":
            return "completed"
        _wait(APPROVAL_POLL_S)
    else:
        _wait(2.0)
    return None


@DBOS.workflow()
def job_workflow(job_id: str, version: str) -> str:
    """Work one task version of a job to its final outcome."""
    while True:
        plan = observe_step(job_id, version)
        if "error" in plan:
            _wait(2.0)
            continue
        outcome = _act(job_id, version, plan)
        if outcome is not None:
            return outcome
