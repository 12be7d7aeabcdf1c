"""The forked driver: a Python candidate in its own process, driven one call at a time over a pipe.

Each instance of the candidate is a child process forked from the harness (``isolation._child`` is its
side). The harness sends a call of the control API and then serves what the child asks while it
runs the call (requests through the gate, the clock, a sleep) until the child answers: the run is
as deterministic as in-process, because only one side moves at a time and the harness decides
everything. What it adds:

* A crash is real. A crash point is SIGKILL of the child: its memory, its threads and its open
  files are gone, and the restart is a new child on the same database. Nothing the candidate did
  after the crash point can reach the world (the child never got the answer it waited for).
* The judge is out of reach. The history, the fakes, the checkers and the verdict live in the
  harness; the child has a copy of them, which nothing reads.
* Bounds. A call whose child stays silent longer than ``call_timeout_s`` (computing, looping,
  sleeping for real) is killed and the run ends, saying which call and which bound. A child's
  address space is bounded (``memory_mb`` above the harness's at fork) and the run's CPU time
  across all its children (``cpu_s``). ``SystemExit``, ``os._exit``, a signal: the candidate died.

Everything else (restarts, the candidate's errors, reports) is its ``InstanceKeeper``'s, as for the
in-process driver: this driver only makes its instances in other processes.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
from respx.models import AllMockedAssertionError

from durable_harness.harness._errors import HarnessError
from durable_harness.harness._gate import answer_headers, sent_request
from durable_harness.harness.isolation import _sdk_time as sdk_time
from durable_harness.harness.isolation._child import Limits
from durable_harness.harness.candidate._claims import RefusedReport
from durable_harness.harness.candidate._driver import CandidateFailed
from durable_harness.harness.drivers._instances import InstanceKeeper, own_frames
from durable_harness.harness.isolation._pipe import HungUp, InstanceKind, PipeGarbage, Silent, recv, send
from durable_harness.harness.candidate._protocol import CandidateCrashed, CandidateRunaway
from durable_harness.harness.isolation._zygote import zygote

__all__ = ["BOUNDS", "CALL_TIMEOUT_S", "CPU_S", "CandidateHung", "ForkedDriver", "MEMORY_MB", "NETWORK", "bounds_from_environment",
           "network_from_environment"]

CALL_TIMEOUT_S = 60.0  # silence of the child within one call (it computes and asks nothing)
MEMORY_MB = 2048  # address space a child may add to the harness's
CPU_S = 600.0  # CPU seconds of all the run's children together

# The bounds a user may set, by environment variable: (the driver's argument, its default, its unit).
NETWORK = "DH_CANDIDATE_NETWORK"  # "none" (default): no network of its own; "host": the host's network
BOUNDS = {"DH_CALL_TIMEOUT_S": ("call_timeout_s", CALL_TIMEOUT_S, "seconds"),
          "DH_CANDIDATE_MEMORY_MB": ("memory_mb", MEMORY_MB, "MiB"),
          "DH_CANDIDATE_CPU_S": ("cpu_s", CPU_S, "seconds")}


def network_from_environment(environ: Mapping[str, str]) -> str:
    """``DH_CANDIDATE_NETWORK``: ``none`` (the default) or ``host``; anything else is a ``ValueError``."""
    value = environ.get(NETWORK) or "none"
    if value not in ("none", "host"):
        raise ValueError(f"{NETWORK}={value!r}: give 'none' (no network but the harness's, the default) or 'host' "
                         "(the host's network too, e.g. for a queue of your own on loopback)")
    return value


def bounds_from_environment(environ: Mapping[str, str]) -> dict[str, Any]:
    """The bounds set in ``environ`` (others keep their defaults), and the instance's network; a bad
    value is a ``ValueError`` naming the variable and the value."""
    out: dict[str, Any] = {"network": network_from_environment(environ)}
    for name, (arg, _, unit) in BOUNDS.items():
        raw = environ.get(name)
        if raw is None or raw == "":
            continue
        try:
            value = float(raw)
        except ValueError:
            value = -1.0
        if not value > 0 or value != value or value == float("inf"):
            raise ValueError(f"{name}={raw!r}: give a positive number of {unit}")
        out[arg] = int(value) if arg == "memory_mb" else value
    return out


class CandidateHung(CandidateRunaway):
    """The child stayed silent past the call's bound, or used up the run's CPU time: the run ends
    (a restart would only hang again)."""


class CandidateRaised(Exception):
    """The candidate's own exception, raised in the child; ``frames`` are its code's frames."""

    frames: list[str] = []


def _raised(header: Mapping[str, Any]) -> CandidateRaised:
    """An exception whose class is named as the candidate's was (``ValueError``), for the record."""
    name = str(header.get("type") or "Exception")
    cls = type(name if name.isidentifier() else "Exception", (CandidateRaised,), {})
    err: CandidateRaised = cls(str(header.get("message") or ""))
    err.frames = [str(f) for f in header.get("frames") or []][:12]
    return err


class _Child:
    """One instance: a forked process and the harness's end of its pipe."""

    def __init__(self, driver: ForkedDriver, spec: str, world: Any, worker_id: str, limits: Limits) -> None:
        self._driver = driver
        self._world = world
        self._worker_id = worker_id
        self._streams: dict[int, Iterator[bytes]] = {}
        self._next_stream = 0
        self.methods: list[str] = []
        self.lease_ttl_s: Any = None  # as the instance declares it (checked by the driver)
        self.status: int | None = None  # the wait status, once reaped
        self.disowned = False  # another process's instance (a sweep's fork): never signalled from here
        self.pid, self.sock = zygote().spawn({
            "mode": "instance", "spec": spec, "worker_id": worker_id, "log": str(driver.log_path),
            "env": world.env_data(worker_id), "limits": {"memory_mb": limits.memory_mb, "cpu_s": limits.cpu_s},
            "sdk": sdk_time.active(), "network": driver.network, "reach": world.reach is not None})

    # -- the instance, as the driver's InstanceKeeper sees it ------------------------------------
    def __getattr__(self, name: str) -> Any:
        if name in ("submit", "cancel", "report", "step", "receive_webhook") and name in self.methods:
            return lambda *args: self.call(name, *args)
        raise AttributeError(name)

    def close(self) -> None:
        self.kill()

    def call(self, method: str, *args: Any) -> Any:
        payload = b""
        if method == "receive_webhook":
            payload = bytes(args[1])
            args = args[:1]
        return self.converse({"k": InstanceKind.CALL, "m": method, "a": list(args)}, payload, method)

    # -- the conversation ----------------------------------------------------------------------
    def _send(self, header: Mapping[str, Any], payload: bytes = b"") -> None:
        """Every message to the child carries the run's time (``t``: now, unix), and what the SDK's
        stand-ins on the run's clock say (``st``, when a scenario puts the SDK there): time moves
        only while the harness runs, so the child knows both until its next message without asking."""
        clock = self._driver.clock_view
        stamped = {**header, "t": [clock.now(), clock.unix()]}
        sdk = sdk_time.times()
        if sdk:
            stamped["st"] = sdk
        send(self.sock, stamped, payload)

    def converse(self, header: Mapping[str, Any] | None, payload: bytes, method: str) -> Any:
        """Send ``header`` (None: the child speaks first), serve the child until it answers, and
        return (or raise) its answer."""
        if header is not None:
            try:
                self._send(header, payload)
            except OSError:
                raise self._died(method) from None
        while True:
            try:
                message, data = recv(self.sock, self._driver.call_timeout_s)
            except Silent:
                raise self._hung(method) from None
            except (HungUp, OSError):
                raise self._died(method) from None
            except PipeGarbage as err:
                raise self._died(method, f"it wrote garbage on the harness's pipe ({err})") from None
            kind = message["k"]
            if "r" in message and self._world.reach is not None:  # lines of its code the call reached
                self._world.reach.update(f"line:{line}" for line in message["r"] or ())
            if kind == InstanceKind.RESULT:
                return message.get("v")
            if kind == InstanceKind.REFUSED_REPORT:  # the child read its report and found it is not a JobReport
                return RefusedReport(str(message.get("problem") or "report() returned no JobReport"))
            if kind == InstanceKind.RAISED:
                raise _raised(message)
            if kind == InstanceKind.READY:
                self.methods = [str(m) for m in message.get("methods") or []]
                self.lease_ttl_s = message.get("lease_ttl_s")
                return None
            self._serve(kind, message, data)

    def _serve(self, kind: str, message: Mapping[str, Any], data: bytes) -> None:
        if kind == InstanceKind.REQUEST:
            self._http(message, data)
        elif kind == InstanceKind.NEXT_CHUNK:
            self._next(int(message.get("s") or 0))
        elif kind == InstanceKind.STREAM_CLOSED:
            stream = self._streams.pop(int(message.get("s") or 0), None)
            close = getattr(stream, "close", None)
            if callable(close):
                close()  # the child does not wait for an answer to this one
        elif kind == InstanceKind.CLOCK:
            clock = self._driver.clock_view
            op = message.get("op")
            if op == "sleep":
                clock.sleep(float(message.get("v") or 0.0))
                self._send({"k": InstanceKind.SLEPT})
            else:
                self._send({"k": InstanceKind.TIME, "v": clock.unix() if op == "unix" else clock.now()})
        elif kind == InstanceKind.SDK_CLOCK and sdk_time.active().get(str(message.get("which"))):
            which, op = str(message.get("which")), str(message.get("op"))
            self._send({"k": InstanceKind.TIME, "v": sdk_time.answer(which, op, float(message.get("v") or 0.0))})
        else:
            raise self._died("a call", f"it sent a message the harness does not know ({kind!r})")

    def _http(self, message: Mapping[str, Any], body: bytes) -> None:
        """A request of the child's, taken as data (``sent_request``) and answered through the gate
        as its transport would answer the same request made with httpx in-process."""
        process = str(message.get("p") or self._worker_id)
        gate = self._world.gate
        try:
            method, url = str(message["m"]), str(message["u"])
            headers = [(str(k), str(v)) for k, v in message.get("h") or []]
            host, read = sent_request(method, url, headers, body)
        except (KeyError, TypeError, ValueError, httpx.InvalidURL) as err:
            self._send({"k": InstanceKind.TRANSPORT_ERROR, "type": "UnsupportedProtocol",
                        "message": f"not a request: {err}"})
            return
        if host not in gate.services:  # as the in-process transport refuses it
            raw = httpx.Request(method, url, headers=headers, stream=httpx.ByteStream(body))
            raise AllMockedAssertionError(f"RESPX: {raw!r} not mocked!")
        try:
            response = gate.exchange(process, host, read)
        except httpx.TransportError as err:
            self._send({"k": InstanceKind.TRANSPORT_ERROR, "type": type(err).__name__, "message": str(err)})
            return
        if response.stream is None:
            self._send({"k": InstanceKind.RESPONSE, "status": response.status, "h": answer_headers(response)},
                       response.body)
            return
        self._next_stream += 1
        self._streams[self._next_stream] = response.stream()
        self._send({"k": InstanceKind.RESPONSE, "status": response.status, "h": answer_headers(response),
                    "s": self._next_stream})

    def _next(self, stream_id: int) -> None:
        stream = self._streams.get(stream_id)
        if stream is None:
            self._send({"k": InstanceKind.STREAM_END})
            return
        try:
            chunk = next(stream)
        except StopIteration:
            self._streams.pop(stream_id, None)
            self._send({"k": InstanceKind.STREAM_END})
            return
        except httpx.TransportError as err:
            self._streams.pop(stream_id, None)
            self._send({"k": InstanceKind.TRANSPORT_ERROR, "type": type(err).__name__, "message": str(err)})
            return
        self._send({"k": InstanceKind.CHUNK}, chunk)

    # -- death -----------------------------------------------------------------------------------
    def _hung(self, method: str) -> CandidateHung:
        self.kill()
        why = (f"{method}() gave no sign of life for {self._driver.call_timeout_s:g} s (the bound of a call: "
               "it computed, looped or slept for real without asking the world anything)")
        self._driver.record_crash(why)
        return CandidateHung(f"{self._worker_id}: {why}")

    def _died(self, method: str, how: str | None = None) -> BaseException:
        self.kill()
        why = how or self.describe_exit()
        if self._driver.cpu_left() <= 0:
            hung = f"{method}(): the run's CPU time bound of {self._driver.cpu_s:g} s is used up ({why})"
            self._driver.record_crash(hung)
            return CandidateHung(f"{self._worker_id}: {hung}")
        return _raised({"type": "ProcessDied", "message": f"the candidate's process {why} during {method}()"})

    def describe_exit(self) -> str:
        status = self.status
        if status is None:
            return "stopped answering"
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            if sig == signal.SIGXCPU or (sig == signal.SIGKILL and self._driver.cpu_left() <= 0):
                return f"was killed by {name}: the run's CPU time bound of {self._driver.cpu_s:g} s was reached"
            return f"was killed by {name}"
        return f"exited with status {os.WEXITSTATUS(status)} (sys.exit, os._exit or the end of its main)"

    def kill(self) -> None:
        """SIGKILL, then reaped by the zygote (bounded: a killed process is reaped at once)."""
        if self.status is not None:
            return
        if self.disowned:  # to this fork it died here; its process goes on, the parent's
            self.sock.close()
            self._streams.clear()
            self.status = signal.SIGKILL  # the wait status of a process killed by SIGKILL
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.sock.close()
        self._streams.clear()
        status, cpu_s = zygote().reap(self.pid)
        self.status = status if status is not None else 0
        self._driver.cpu_used += cpu_s


def _cpu_so_far(pid: int) -> float:
    """CPU seconds process ``pid`` and its reaped children have used (Linux's ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text("ascii").rsplit(")", 1)[1].split()
        return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime stime cutime cstime
    except (OSError, ValueError, IndexError):
        return 0.0


class ForkedDriver:
    """A Python candidate with each instance in a child process (see the module's doc)."""

    def __init__(self, spec: str, world: Any, *, worker_id: str = "worker-1", max_restarts: int = 25,
                 call_timeout_s: float = CALL_TIMEOUT_S, memory_mb: int = MEMORY_MB, cpu_s: float = CPU_S,
                 network: str = "none") -> None:
        self._spec = spec
        self._world = world
        self.worker_id = worker_id
        self.call_timeout_s = call_timeout_s
        self.memory_mb = memory_mb
        self.cpu_s = cpu_s
        self.network = network
        self.cpu_used = 0.0
        self.log_path = Path(world.workdir) / f"candidate-{worker_id}.log"
        self.clock_view = world.candidate_clock(worker_id)
        self._keeper = InstanceKeeper(self.start, world.clock, world.history, worker_id, max_restarts, _frames)

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

    def forked_to(self, workdir: Path) -> None:
        """In a fork of the harness that is a sweep's crash point: the instance running now stays
        the parent's (this fork only lets go of it when it crashes here), and the instances this
        fork starts log into ``workdir``, its copy of the run's folder."""
        instance = self._keeper.instance
        if isinstance(instance, _Child):
            instance.disowned = True
            self.cpu_used += _cpu_so_far(instance.pid)  # what reaping it at its crash would count
        self.log_path = workdir / f"candidate-{self.worker_id}.log"

    def cpu_left(self) -> float:
        return self.cpu_s - self.cpu_used

    def record_crash(self, why: str) -> None:
        self._world.history.append(self._world.clock.now(), "crash", self.worker_id, {"because": why})

    def start(self) -> None:
        if self.cpu_left() <= 0:
            raise CandidateFailed(f"{self.worker_id}: the run's CPU time bound of {self.cpu_s:g} s is used up")
        child = _Child(self, self._spec, self._world, self.worker_id, Limits(self.memory_mb, self.cpu_left()))
        try:
            child.converse(None, b"", "start")  # the child speaks first: ready, or the factory's error
        except CandidateHung as hung:
            raise CandidateFailed(str(hung)) from None
        except CandidateCrashed:
            child.kill()
            raise CandidateFailed(f"{self.worker_id}: the candidate was crashed by a fault while starting") from None
        except CandidateRaised as err:
            child.kill()
            self._keeper.record_error("factory", err)
            if type(err).__name__ == "ProcessDied":
                raise CandidateFailed(f"{self.worker_id}: {err}") from None
            raise CandidateFailed(f"{self.worker_id}: the candidate factory raised {type(err).__name__}: {err}") from None
        except HarnessError:
            child.kill()
            raise
        except BaseException:  # a crash fired while it started, or an interruption: it is dead either way
            child.kill()
            raise
        self._keeper.instance = child
        for method in ("submit", "report", "step"):
            if method not in child.methods:
                raise CandidateFailed(f"{self.worker_id}: the candidate object has no {method}() method (see docs/contract.md)")

    def restart(self, because: str) -> None:
        self._keeper.restart(because)

    def redeploy(self, spec: str, because: str) -> None:
        """A deploy: the instance is stopped and a child of the next version starts on the same database."""
        self._keeper.stop_for(spec, because)
        self._spec = spec  # the next instance's child imports it
        self.start()

    def kill(self, because: str, *, spare_op: int | None = None) -> None:
        """Abandon the instance (SIGKILL); its requests still open are completed as ``info``
        (``spare_op`` excepted: one held by a pause, which goes on without it)."""
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


def _frames(err: BaseException) -> list[str]:
    """The candidate's frames: sent by its child with the exception it raised there."""
    return list(err.frames) if isinstance(err, CandidateRaised) else own_frames(err)
