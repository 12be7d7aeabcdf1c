"""``restart_worker``: another worker dies and comes back while the one working the job goes on.

A worker whose process is killed (a node drained, an out-of-memory kill, a deploy of one replica)
restarts at once, while the worker that holds the job is alive and in the middle of it. Frameworks
with their own recovery resume "their" pending work on start-up: a durable-execution library that
gives every replica the same executor id recovers the live worker's workflow too, and two
executions of one job then write side by side. At the trigger's request (made by any worker, or
by the one the trigger's ``requester`` names), the workers ``worker`` names (``other``, the
default: every worker but the one making the request; or ``worker-N``, never the requester) are
killed: their memory and locks are gone, their open requests reach no one. Each starts again at
once on the same database: in-process before the requester's request goes on (a start takes no
time), as a process at the run's next turn while the others work on (its start takes real time;
the trigger is best placed early in the job, so that work is left when it is back). Needs ``workers``
of 2 or more. What is judged is what always is: a write after another worker's (a stale writer),
duplicates, what the job's ledger says.
"""

from __future__ import annotations

from typing import Any

from durable_harness.harness.faults._base import Action, Effect, FaultContext
from durable_harness.harness.faults._registry import fault_kind
from durable_harness.harness.faults._request_fault import RequestFault

__all__ = ["RestartWorker"]


@fault_kind("restart_worker")
class RestartWorker(RequestFault):
    point = "before"
    min_workers = 2
    params_schema = {
        "worker": {"type": "string", "pattern": "^(other|worker-[1-9])$", "default": "other",
                   "description": "who is killed and restarted: every worker but the requester (other), or worker-N"},
        "requester": {"type": "string", "pattern": "^(any|worker-[1-9])$", "default": "any",
                      "description": "whose requests the trigger counts (any, or worker-N)"},
    }

    def observe(self, ctx: FaultContext) -> None:
        if str(self.param("requester")) in ("any", ctx.process):
            super().observe(ctx)

    def action(self, ctx: FaultContext) -> Action | None:
        return Effect("restart_worker", {"worker": str(self.param("worker")), "requester": ctx.process})
