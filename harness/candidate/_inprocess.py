"""The in-process driver: a Python candidate as an object, killed and restarted at will.

A crash is ``CandidateCrashed`` raised by the gate inside the candidate; the driver abandons the
instance (calling its optional ``close()`` only to release in-process resources) and makes a new
one from the factory on the same database: a restart. A candidate that raises anything else from
the control API has crashed by itself; that is recorded and restarted the same way, up to a bound.

It deliberately does not decide when to step or what to check; the run loop does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from harness._clock import VirtualClock
from harness._history import History
from harness.candidate._protocol import CandidateCrashed, CandidateEnv, CandidateRunaway

__all__ = ["CandidateFailed", "InProcessDriver"]


class CandidateFailed(RuntimeError):
    """The candidate cannot be run at all (its factory fails, or it crashes without end)."""


class InProcessDriver:
    def __init__(self, factory: Callable[[CandidateEnv], Any], make_env: Callable[[str], CandidateEnv],
                 clock: VirtualClock, history: History, *, worker_id: str = "worker-1", max_restarts: int = 25) -> None:
        self._factory = factory
        self._make_env = make_env
        self._clock = clock
        self._history = history
        self.worker_id = worker_id
        self.max_restarts = max_restarts
        self.restarts = 0
        self._instance: Any = None
        self._last_report: str | None = None
        self.last_death: str | None = None

    def accepts(self, method: str) -> bool:
        """Whether the running instance offers an optional control-API method (a capability)."""
        return callable(getattr(self._instance, method, None))

    @property
    def alive(self) -> bool:
        return self._instance is not None

    def start(self) -> None:
        env = self._make_env(self.worker_id)
        try:
            self._instance = self._factory(env)
        except CandidateCrashed:
            self._instance = None
            raise CandidateFailed(f"{self.worker_id}: the candidate was crashed by a fault while starting") from None
        except Exception as err:
            raise CandidateFailed(f"{self.worker_id}: the candidate factory raised {type(err).__name__}: {err}") from err
        for method in ("submit", "report", "step"):
            if not callable(getattr(self._instance, method, None)):
                raise CandidateFailed(f"{self.worker_id}: the candidate object has no {method}() method (see docs/contract.md)")

    def restart(self, because: str) -> None:
        if self.restarts >= self.max_restarts:
            raise CandidateFailed(f"{self.worker_id}: restarted {self.restarts} times and still crashing; "
                                  f"last death: {self.last_death or because}")
        self._discard()
        self.restarts += 1
        self._history.append(self._clock.now(), "restart", self.worker_id, {"restart": self.restarts, "because": because})
        self.start()

    def kill(self, because: str) -> None:
        """Abandon the instance (a crash fired by the gate, or the candidate's own exception)."""
        self.last_death = because
        self._history.close_open(self._clock.now(), f"{self.worker_id} died: {because}")
        self._discard()

    def _discard(self) -> None:
        instance, self._instance = self._instance, None
        close = getattr(instance, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # a dead process cleans nothing up; we only free memory and files
                pass

    # -- the control API, each call guarded ----------------------------------------------
    def call(self, method: str, *args: Any) -> Any:
        """Call the control API; returns ``None`` if the candidate died in the call."""
        if self._instance is None:
            self.restart("not running")
        try:
            return getattr(self._instance, method)(*args)
        except CandidateRunaway as runaway:
            self.kill(str(runaway))
            raise CandidateFailed(str(runaway)) from None
        except CandidateCrashed as crash:
            self.kill(str(crash))
            return None
        except Exception as err:
            why = f"{method}() raised {type(err).__name__}: {err}"
            self._history.append(self._clock.now(), "crash", self.worker_id, {"because": why})
            self.kill(why)
            return None

    def sample(self, job_id: str) -> Mapping[str, Any] | None:
        """The candidate's report of ``job_id``; recorded in the history when it changed."""
        report = self.call("report", job_id)
        if report is None:
            return None
        if not isinstance(report, Mapping):
            self._history.append(self._clock.now(), "note", self.worker_id, {"because": f"report() returned {type(report).__name__}, not a JobReport"})
            return None
        text = json.dumps(report, sort_keys=True, default=str)
        if text != self._last_report:
            self._last_report = text
            self._history.append(self._clock.now(), "report", self.worker_id, json.loads(text))
        return report
