"""What every driver of a Python candidate does with its instances, wherever an instance runs.

The in-process driver makes an instance in the harness's process, the forked driver in a child
process; both hold an ``InstanceKeeper``, which holds the one instance running and passes it the
control-API calls. A ``CandidateCrashed`` raised in a call is a crash: the instance is abandoned
(its optional ``close()`` called, only to release resources) and its requests still open are
completed as ``info``. Anything else the candidate raises is its own crash: the exception is
recorded (type, message, the candidate's own frames) and the instance is abandoned the same way.
A restart makes a new instance on the same database, up to a bound.

It deliberately does not make instances (the driver's ``start`` does, and sets ``instance``), nor
decide when to step or what to check (the run loop does).
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._errors import HarnessError
from durable_harness.harness._history import History
from durable_harness.harness.candidate._claims import ReportSampler
from durable_harness.harness.candidate._driver import CAPABILITIES, CandidateFailed
from durable_harness.harness.candidate._protocol import CandidateCrashed, CandidateRunaway

__all__ = ["InstanceKeeper", "own_frames"]

_MAX_FRAMES = 12
_MAX_ERRORS = 50
_HARNESS_DIRS = tuple(str(Path(__file__).resolve().parents[2] / d) + os.sep for d in ("harness", "fakes", "wire"))


def own_frames(err: BaseException) -> list[str]:
    """The traceback frames of the candidate's code: not the harness's, the fakes' or installed libraries'."""
    frames = []
    for frame in traceback.extract_tb(err.__traceback__):
        path = str(Path(frame.filename).resolve())
        if path.startswith(_HARNESS_DIRS) or "site-packages" in path or path.startswith(_STDLIB):
            continue
        frames.append(f"{_short(path)}:{frame.lineno} in {frame.name}")
    return frames[-_MAX_FRAMES:]


class InstanceKeeper:
    """One worker's instance of the candidate, its restarts and the errors its code raised (see the
    module's doc). ``start`` is the driver's: it makes an instance and sets ``instance``;
    ``frames`` reads the candidate's frames from an exception it raised."""

    def __init__(self, start: Callable[[], None], clock: VirtualClock, history: History, worker_id: str,
                 max_restarts: int, frames: Callable[[BaseException], list[str]] = own_frames) -> None:
        self._start = start
        self._clock = clock
        self._history = history
        self._frames = frames
        self.worker_id = worker_id
        self.max_restarts = max_restarts
        self.restarts = 0
        self.instance: Any = None
        self.last_death: str | None = None
        self._sampler = ReportSampler(history, clock.now, worker_id)
        self._errors: list[dict[str, Any]] = []
        self._depth = 0  # > 1 while a call arrives during another (a cancel while a request is in flight)

    @property
    def alive(self) -> bool:
        return self.instance is not None

    @property
    def lease_ttl_s(self) -> float | None:
        """The lease the running instance declares (its ``lease_ttl_s`` attribute), if any."""
        return _seconds(getattr(self.instance, "lease_ttl_s", None))

    @property
    def candidate_errors(self) -> list[dict[str, Any]]:
        """Exceptions the candidate's own code raised from a control-API call (at most 50)."""
        return list(self._errors)

    def accepts(self, capability: str) -> bool:
        """Whether the running instance offers an optional part of the contract (``webhooks``)."""
        return callable(getattr(self.instance, CAPABILITIES.get(capability, capability), None))

    def restart(self, because: str) -> None:
        if self.restarts >= self.max_restarts:
            raise CandidateFailed(f"{self.worker_id}: restarted {self.restarts} times and still crashing; "
                                  f"last death: {self.last_death or because}")
        self.discard()
        self.restarts += 1
        self._history.append(self._clock.now(), "restart", self.worker_id, {"restart": self.restarts, "because": because})
        self._start()

    def stop_for(self, spec: str, because: str) -> None:
        """A deploy of ``spec``: the instance is stopped (its ``close()`` called, as a graceful
        shutdown would); the driver starts the next version's. Not a crash: no restart budget."""
        self.discard()
        self._history.append(self._clock.now(), "restart", self.worker_id, {"because": because, "deployed": spec})

    def kill(self, because: str, *, spare_op: int | None = None) -> None:
        """Abandon the instance (a crash fired by the gate, or the candidate's own exception). Its
        requests still open are completed as ``info`` (``spare_op``: one that goes on without it,
        held by a pause), never another worker's."""
        self.last_death = because
        self._history.close_open(self._clock.now(), f"{self.worker_id} died: {because}",
                                 spare=lambda op, process: op == spare_op or (process.startswith("worker-")
                                                                               and process != self.worker_id))
        self.discard()

    def discard(self) -> None:
        instance, self.instance = self.instance, None
        close = getattr(instance, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # a dead process cleans nothing up; we only free memory and files
                pass

    # -- the control API ---------------------------------------------------------------------
    def submit(self, job: Mapping[str, Any]) -> Mapping[str, Any] | None:
        alive, result = self._call("submit", job)
        return (result if isinstance(result, Mapping) else {"returned": repr(result)[:200]}) if alive else None

    def cancel(self, job_id: str) -> Mapping[str, Any] | None:
        alive, result = self._call("cancel", job_id)
        return (result if isinstance(result, Mapping) else {"returned": repr(result)[:200]}) if alive else None

    def step(self) -> bool | None:
        alive, result = self._call("step")
        return bool(result) if alive else None

    def deliver_webhook(self, headers: Mapping[str, str], body: bytes) -> int | None:
        alive, status = self._call("receive_webhook", dict(headers), bytes(body))
        if not alive:
            return None
        return int(status) if isinstance(status, int) and not isinstance(status, bool) else 500

    def report(self, job_id: str) -> Mapping[str, Any] | None:
        """The candidate's report of ``job_id`` as plain JSON, recorded in the history when it changed;
        a report that is not a JobReport (``check_report``) is recorded as such and is no report."""
        alive, report = self._call("report", job_id)
        return self._sampler.sample(report) if alive else None

    def _call(self, method: str, *args: Any) -> tuple[bool, Any]:
        """Call the control API: (alive, result); alive is False if the candidate died in the call."""
        if self.instance is None:
            self.restart("not running")
        if self._depth > 0:
            return self._nested(method, *args)
        self._depth += 1
        try:
            return True, getattr(self.instance, method)(*args)
        except HarnessError:
            raise
        except CandidateRunaway as runaway:
            self.kill(str(runaway))
            raise CandidateFailed(str(runaway)) from None
        except CandidateCrashed as crash:
            self.kill(str(crash))
            return False, None
        except KeyboardInterrupt:  # SIGINT or SIGTERM stops the run, and may arrive while candidate code runs
            raise
        except BaseException as err:  # SystemExit, GeneratorExit, a class of its own: the candidate crashed
            why = f"{method}() raised {type(err).__name__}: {err}"
            number = self.record_error(method, err)
            self._history.append(self._clock.now(), "crash", self.worker_id, {"because": why, "candidate_error": number})
            self.kill(why)
            return False, None
        finally:
            self._depth -= 1

    def _nested(self, method: str, *args: Any) -> tuple[bool, Any]:
        """A call that arrives while another is blocked in a request (a cancel while a write is in
        flight, as a concurrent HTTP request would): its failure is recorded; the outer call goes on."""
        self._depth += 1
        try:
            return True, getattr(self.instance, method)(*args)
        except (HarnessError, CandidateCrashed, KeyboardInterrupt):
            raise
        except BaseException as err:  # whatever class, the candidate's own failure
            number = self.record_error(method, err)
            self._history.append(self._clock.now(), "note", self.worker_id, {
                "because": f"{method}() raised {type(err).__name__}: {err} (during another call)",
                "candidate_error": number})
            return False, None
        finally:
            self._depth -= 1

    def record_error(self, method: str, err: BaseException) -> int:
        """Keep the candidate's exception (its own frames only, not the harness's); returns its number."""
        if len(self._errors) < _MAX_ERRORS:
            self._errors.append({"method": method, "type": type(err).__name__, "message": str(err)[:500],
                                 "frames": self._frames(err), "history_index": len(self._history),
                                 "time_s": round(self._clock.now(), 6)})
        return len(self._errors)


def _short(path: str) -> str:
    """A path relative to the working directory when it lies below it (reproducible across checkouts)."""
    cwd = os.getcwd() + os.sep
    return path[len(cwd):] if path.startswith(cwd) else path


_STDLIB = str(Path(os.__file__).resolve().parent) + os.sep


def _seconds(value: Any) -> float | None:
    """A positive finite number of seconds, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    seconds = float(value)
    return seconds if 0 < seconds < float("inf") else None
