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
time), as a process on a thread of its own while the others work on (its start takes real time;
meanwhile the agents think slower, up to half the shortest declared lease a thought, so that the job
lasts longer while its holder still writes within its lease; the trigger is best placed early in
the job, so that work is left when it is back). Needs ``workers``
of 2 or more. What is judged is what always is: a write after another worker's (a stale writer),
duplicates, what the job's ledger says.

The condition it names is met only if the restarted workers were up while the job was still held:
a worker wrote for it after they were back. A process whose start took longer than the job had
left (a slow start on a busy machine, a high ``DURABLE_HARNESS_TIME_SCALE``) came back to nothing
to take over: the fault is then *not reached*, with the times that say so, never a quiet pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from durable_harness.harness._history import History
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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._restarts: list[_Restart] = []  # one per firing asked for, in order

    def observe(self, ctx: FaultContext) -> None:
        if str(self.param("requester")) in ("any", ctx.process):
            super().observe(ctx)

    def action(self, ctx: FaultContext) -> Action | None:
        restart = _Restart(ctx.process, ctx.now_s, ctx.op)
        self._restarts.append(restart)
        return Effect("restart_worker", {"worker": str(self.param("worker")), "requester": ctx.process,
                                         "on_back": restart.back})

    # -- was the condition met? ------------------------------------------------------------------
    def _late(self) -> list[_Restart]:
        """The firings whose workers came back (or did not) after the job's last write."""
        by_op = {r.op: r for r in self._restarts}
        late = []
        for evidence in self.state.evidence:  # a firing that took effect: whom it killed
            restart = by_op.get(int(evidence.get("op") or 0))
            if restart is None:
                continue
            for worker in evidence.get("killed", []):
                restart.victims.setdefault(str(worker), None)
            if not restart.met():
                late.append(restart)
        return late

    @property
    def status(self) -> str:
        status = super().status
        return "not_reached" if status == "fired" and self._late() else status

    def reach(self) -> str:
        late = self._late() if super().status == "fired" else []
        return _late_line(late[0]) if late else super().reach()

    def to_json(self) -> dict[str, Any]:
        doc = super().to_json()
        if doc["status"] == "not_reached" and super().status == "fired":
            doc["fired"] = 0  # the kills happened (the evidence); the condition was not tested
        return doc


@dataclass
class _Restart:
    """One firing: who asked, when, and when each killed worker was up again."""

    requester: str
    at_s: float
    op: int
    victims: dict[str, tuple[int, float] | None] = field(default_factory=dict)  # history index and time back
    at_once: bool = False
    history: History | None = None

    def back(self, worker: str, at_once: bool, history: History, now_s: float) -> None:
        self.victims[worker] = (len(history), now_s)
        self.at_once, self.history = at_once, history

    def met(self) -> bool:
        """In-process the start takes no time: back while the requester's request is under way. As a
        process: every victim back, and a worker wrote for the job after the last was."""
        if self.at_once:
            return True
        backs = list(self.victims.values())
        if not backs or any(b is None for b in backs) or self.history is None:
            return False
        since = max(b[0] for b in backs if b is not None)
        return any(_is_write(e) for e in list(self.history)[since:])

    def last_write_s(self) -> float | None:
        writes = [e.time_s for e in (self.history or ()) if _is_write(e)]
        return max(writes) if writes else None


def _is_write(entry: Any) -> bool:
    return (entry.type == "invoke" and entry.process.startswith("worker-")
            and str(entry.data.get("method", "GET")) not in ("GET", "HEAD", "OPTIONS"))


def _late_line(r: _Restart) -> str:
    backs = r.victims
    gone = sorted(w for w, b in backs.items() if b is None)
    if gone:
        return (f"{', '.join(gone)} killed at {r.at_s:.1f} s (requester {r.requester}) was not up again by the end of "
                "the run: the restart never met the job")
    back_s = max(b[1] for b in backs.values() if b is not None)
    last = r.last_write_s()
    after = f"after the job's last write ({last:.1f} s)" if last is not None else "and no worker wrote for the job after"
    return (f"{', '.join(sorted(backs))} killed at {r.at_s:.1f} s came back at {back_s:.1f} s, {after}: "
            f"nothing was left to take over while {r.requester} held the job, so the condition was not tested "
            f"(a process's start takes real time, {back_s - r.at_s:.0f} s of the run's time here; a lower "
            "DURABLE_HARNESS_TIME_SCALE brings it back sooner, a trigger earlier in the job leaves more to do)")
