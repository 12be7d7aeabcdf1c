"""The worker: ticks each job version's graph while it holds the job's lease.

A tick resumes the thread's interrupted run when its last checkpoint has nodes left to run
(`invoke(None)`: the process died in the middle of a run, or a node raised), and otherwise starts a
new run from START. Each run ends by naming when to come back (`wait_s`); a new job, a
cancellation or a webhook wakes the worker at once. Versions superseded by a newer one get a tick
until they are retired (their agent's turn cancelled).
"""

from __future__ import annotations

import threading
import time
import traceback
from typing import Any

from langgraph.errors import GraphRecursionError

from .deps import Deps
from .graph import thread_config

NOT_OURS_WAIT_S = 3.0


class Worker(threading.Thread):
    """One thread per process works every job this process holds."""

    def __init__(self, deps: Deps, graph: Any) -> None:
        super().__init__(name="lgcp-worker", daemon=True)
        self.d = deps
        self.graph = graph
        self.due: dict[str, float] = {}
        self.ticks = 0

    def run(self) -> None:
        self.d.clock.known.wait()
        while True:
            self.d.wake.clear()
            try:
                self._round()
            except Exception:
                traceback.print_exc()
                time.sleep(self.d.clock.real(2.0))
            now = self.d.clock.now()
            next_due = min(self.due.values(), default=now + 5.0)
            self.d.wake.wait(timeout=max(0.01, self.d.clock.real(min(next_due, now + 5.0) - now)))
            if self.d.wake.is_set():
                self.due = {k: 0.0 for k in self.due}

    def _round(self) -> None:
        for job in self.d.store.active_jobs():
            job_id = job["job_id"]
            versions = [v["version"] for v in self.d.store.versions(job_id)]
            for version in versions:
                thread = f"{job_id}@v{version}"
                if self.due.get(thread, 0.0) > self.d.clock.now():
                    continue
                if self.d.leases.hold(job_id) is None:
                    self.due[thread] = self.d.clock.now() + NOT_OURS_WAIT_S
                    continue
                state = self._tick(job_id, version, str(job["workload"]))
                self.due[thread] = self.d.clock.now() + float(state.get("wait_s") or 1.0)

    def _tick(self, job_id: str, version: str, workload: str) -> dict[str, Any]:
        config = thread_config(job_id, version)
        self.ticks += 1
        try:
            snapshot = self.graph.get_state(config)
            if snapshot.next:
                out = self.graph.invoke(None, config, durability="sync")
            else:
                inputs = {"job_id": job_id, "version": version, "workload": workload, "wake": self.ticks}
                out = self.graph.invoke(inputs, config, durability="sync")
            return dict(out or {})
        except GraphRecursionError:
            return {"wait_s": 0.5}
        except Exception:
            traceback.print_exc()
            return {"wait_s": 2.0}
