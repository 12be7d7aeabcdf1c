"""The user's actions: cancel the job; change the task (a new task version).

``cancel`` calls the candidate's ``cancel(job_id)``: its return is the acknowledgement, recorded
with its instant (from then on the candidate may read and cancel the session's turn, nothing
else). With a request trigger at ``point: after`` it arrives while that operation is in flight, as
a concurrent HTTP request would: in-process, ``cancel`` is then called while the candidate's own
call is blocked in that request. ``change_task`` submits the job's next version (``task_version``,
by default the current one plus one) with ``input`` overrides, through ``submit``; the world's job
becomes that version (checkers judge it), and the old version's approvals no longer apply.

Both return None, and so have not fired, when no candidate is running to receive them.
"""

from __future__ import annotations

from typing import Any

from durable_harness.harness.actions._base import ActionContext, ScenarioAction, action_kind

__all__ = ["Cancel", "ChangeTask", "next_version"]


def next_version(version: str) -> str:
    return str(int(version) + 1) if version.isdigit() else f"{version}.1"


@action_kind("cancel", "user")
class Cancel(ScenarioAction):
    def perform(self, world: ActionContext) -> dict[str, Any] | None:
        driver = world.candidate()
        if driver is None or not driver.alive:
            return None
        job_id = str(world.job["job_id"])
        answer = driver.cancel(job_id)
        return {"job_id": job_id, "task_version": str(world.job["task_version"]), "acknowledged": answer is not None,
                "answer": dict(answer) if answer is not None else None}


@action_kind("change_task", "user")
class ChangeTask(ScenarioAction):
    params_schema = {"task_version": {"type": "string", "minLength": 1, "maxLength": 100},
                     "input": {"type": "object"}}

    def perform(self, world: ActionContext) -> dict[str, Any] | None:
        driver = world.candidate()
        if driver is None or not driver.alive:
            return None
        job = world.new_version(self.params)
        answer = driver.submit(job)
        world.set_job(job)
        return {"job_id": job["job_id"], "task_version": job["task_version"], "input": job["input"],
                "acknowledged": answer is not None}
