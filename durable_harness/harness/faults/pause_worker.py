"""``pause_worker``: one worker of several stops at a request of its own, past its lease, while the
others go on; then it resumes, and its request goes on its way (``Hold``).

As SIGSTOP does to a process: the worker that made the matching request (the one holding the job,
whichever it is; ``worker`` names one, and then the trigger counts only its requests) is frozen
with the request it sent held, ``before`` it reaches the service (point ``before``, the default: a write in
flight) or ``after`` the service committed it (its answer held). The pause lasts ``for_s`` seconds
of the run's time, or, when not given, twice the lease the candidate declares (``lease_ttl_s``)
plus a second, or 120 s for a candidate that declares none. With ``kill: true`` the worker dies
when the pause begins (its memory and its locks gone) and stays down for the pause: a request held
before delivery is still delivered at its end (a network delivers what a dead sender sent), and its
answer reaches no one. Needs ``workers`` of 2 or more; the run's history shows the nemesis's
``pause`` and ``resume`` notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from durable_harness.harness.faults._base import Action, FaultContext, Hold
from durable_harness.harness.faults._registry import fault_kind
from durable_harness.harness.faults._request_fault import RequestFault

__all__ = ["PauseWorker"]


@fault_kind("pause_worker")
class PauseWorker(RequestFault):
    point = "before"
    min_workers = 2
    @classmethod
    def scenario_problem(cls, fault: Mapping[str, Any], scenario: Mapping[str, Any]) -> tuple[str, str] | None:
        """A dead worker's write delivered after the takeover can only be stopped by the resource:
        without a fencing gateway no correct control plane could keep it from landing twice."""
        at = fault.get("at") or {}
        if not fault.get("kill") or fault.get("point", "before") != "before" or at.get("method") == "GET":
            return None
        fenced = ((scenario.get("services") or {}).get("wordpress") or {}).get("fencing") == "header"
        if at.get("service") == "wordpress" and fenced:
            return None
        return "kill", (f"a killed worker's {at.get('method')} {at.get('service')} request held before delivery reaches "
                        "the service after another worker took over, and only the resource can refuse it: give a "
                        "WordPress write with services.wordpress.fencing: header, or point: after, or a GET")

    params_schema = {
        "worker": {"type": "string", "pattern": "^(any|worker-[1-9])$", "default": "any",
                   "description": "the worker paused (any: whichever made the request); the trigger counts its requests"},
        "point": {"enum": ["before", "after"], "default": "before",
                  "description": "the request is held before delivery, or after the service committed it"},
        "for_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 86400,
                  "description": "how long (default: twice the candidate's lease_ttl_s plus 1 s, or 120 s)"},
        "kill": {"type": "boolean", "default": False,
                 "description": "the worker dies when the pause begins and stays down for it"},
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.point = str(self.param("point"))  # type: ignore[misc]
        self.worker = str(self.param("worker"))

    def observe(self, ctx: FaultContext) -> None:
        if self.worker in ("any", ctx.process):
            super().observe(ctx)

    def action(self, ctx: FaultContext) -> Action | None:
        for_s = self.param("for_s")
        return Hold(for_s=float(for_s) if for_s is not None else -1.0, kill=bool(self.param("kill")))
