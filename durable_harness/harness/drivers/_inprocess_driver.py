"""The in-process driver: a Python candidate as an object, killed and restarted at will.

A crash is ``CandidateCrashed`` raised by the gate inside the candidate; the driver abandons the
instance (calling its optional ``close()`` only to release in-process resources) and makes a new
one from the factory on the same database: a restart. A candidate that raises anything else from
the control API has crashed by itself; the exception is recorded (type, message, the candidate's
own frames) and the candidate is restarted the same way, up to a bound. The driver makes the
instances; its ``InstanceKeeper`` (shared with the forked driver) does the rest.

It deliberately does not decide when to step or what to check; the run loop does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._history import History
from durable_harness.harness.candidate._driver import CandidateFailed
from durable_harness.harness.drivers._instances import InstanceKeeper
from durable_harness.harness.candidate._protocol import CandidateCrashed, CandidateEnv

__all__ = ["InProcessDriver"]

_REQUIRED = ("submit", "report", "step")


class InProcessDriver:
    def __init__(self, factory: Callable[[CandidateEnv], Any], make_env: Callable[[str], CandidateEnv],
                 clock: VirtualClock, history: History, *, worker_id: str = "worker-1", max_restarts: int = 25) -> None:
        self._factory = factory
        self._make_env = make_env
        self.worker_id = worker_id
        self._keeper = InstanceKeeper(self.start, clock, history, worker_id, max_restarts)

    @property
    def alive(self) -> bool:
        return self._keeper.alive

    @property
    def restarts(self) -> int:
        return self._keeper.restarts

    @property
    def max_restarts(self) -> int:
        return self._keeper.max_restarts

    @property
    def last_death(self) -> str | None:
        return self._keeper.last_death

    @property
    def lease_ttl_s(self) -> float | None:
        return self._keeper.lease_ttl_s

    @property
    def candidate_errors(self) -> list[dict[str, Any]]:
        return self._keeper.candidate_errors

    def accepts(self, capability: str) -> bool:
        return self._keeper.accepts(capability)

    def start(self) -> None:
        env = self._make_env(self.worker_id)
        try:
            self._keeper.instance = self._factory(env)
        except CandidateCrashed:
            self._keeper.instance = None
            raise CandidateFailed(f"{self.worker_id}: the candidate was crashed by a fault while starting") from None
        except Exception as err:
            self._keeper.record_error("factory", err)
            raise CandidateFailed(f"{self.worker_id}: the candidate factory raised {type(err).__name__}: {err}") from err
        for method in _REQUIRED:
            if not callable(getattr(self._keeper.instance, method, None)):
                raise CandidateFailed(f"{self.worker_id}: the candidate object has no {method}() method (see docs/contract.md)")

    def restart(self, because: str) -> None:
        self._keeper.restart(because)

    def redeploy(self, spec: str, because: str) -> None:
        """A deploy: the instance is stopped and the next version's instance starts on the same database."""
        from durable_harness.harness.candidate._spec import resolve_candidate

        self._keeper.stop_for(spec, because)
        self._factory = resolve_candidate(spec)
        self.start()

    def kill(self, because: str, *, spare_op: int | None = None) -> None:
        """Abandon the instance; its requests still open are completed as ``info`` (``spare_op``
        excepted: one held by a pause, which goes on without it)."""
        self._keeper.kill(because, spare_op=spare_op)

    def close(self) -> None:
        self._keeper.discard()

    # -- the control API ---------------------------------------------------------------------
    def submit(self, job: Mapping[str, Any]) -> Mapping[str, Any] | None:
        return self._keeper.submit(job)

    def cancel(self, job_id: str) -> Mapping[str, Any] | None:
        return self._keeper.cancel(job_id)

    def step(self) -> bool | None:
        return self._keeper.step()

    def deliver_webhook(self, headers: Mapping[str, str], body: bytes) -> int | None:
        return self._keeper.deliver_webhook(headers, body)

    def report(self, job_id: str) -> Mapping[str, Any] | None:
        return self._keeper.report(job_id)
