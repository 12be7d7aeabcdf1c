"""The coding workload: the agent writes code and runs tests in its sandbox, then asks the control
plane to deliver a digest-checked report.

It builds the job a scenario submits and maps ground truth back to it: the sessions fake
registers each delivered report's digest as a payload (``role: "report"``) with the sandbox
``reset_count`` the tests ran at, and the executor records every reset with its time.

It deliberately does not script the agent (``fakes.openai_agents.brains.coding`` does).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["CODING_TOOLS", "build_coding_job", "report_payloads", "reset_count_at"]

CODING_TOOLS = ("deliver_result",)

DEFAULT_INPUT = {"module": "slugify", "functions": ["slugify", "dedupe"], "report_path": "report.md", "preamble_items": 0}


def build_coding_job(job_id: str, task_version: str, params: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "job_id": job_id,
        "task_version": task_version,
        "tenant": "acme-platform",
        "workload": "coding",
        "input": {**DEFAULT_INPUT, **params},
        "allowed_tools": list(CODING_TOOLS),
        "budget": {"max_resume_attempts": 5, "max_tool_calls": 10},
    }


def report_payloads(openai_truth: Mapping[str, Any], job_id: str, task_version: str) -> dict[str, Mapping[str, Any]]:
    """Digest -> facts of every report the agent delivered for the job version."""
    return {sha: p for sha, p in (openai_truth.get("payloads") or {}).items()
            if p.get("role") == "report" and (str(p.get("job_id")), str(p.get("task_version"))) == (job_id, task_version)}


def reset_count_at(openai_truth: Mapping[str, Any], environment_id: str, t: float) -> int | None:
    """The sandbox's ``reset_count`` at virtual time ``t`` (None: no such environment)."""
    for env in (openai_truth.get("executor") or {}).get("environments", []):
        if env.get("id") == environment_id:
            counts = [int(h["reset_count"]) for h in env.get("status_history", []) if float(h["at_s"]) <= t]
            return counts[-1] if counts else 0
    return None
