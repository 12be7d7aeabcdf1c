"""The process driver: a candidate in any language, started as a command and driven over HTTP.

``start`` has the world serve itself to this worker (``World.serve``: loopback servers with the
gate on the server side, behind proxies when the network is faulted) and points the candidate's
endpoints at them, then starts the command (``_supervisor``: its own process group, its output
redacted into ``candidate-<worker>.log`` beside run.json) with the contract's environment:
``CandidateEnv.environ()``, ``CANDIDATE_LISTEN``, ``HARNESS_TIME_SCALE`` and ``HARNESS_TIME_ORIGIN``.
It waits, bounded, for ``GET /health`` to answer 200 with a JSON object (``capabilities``:
``["webhooks"]`` when it takes ``POST /webhooks/openai``). The run's time stands still from a
death (or the first start) until the candidate is healthy: a restart takes no scenario time, as
in-process; every call says the run's time (``X-Harness-Time``).

The control API is ``POST /jobs``, ``POST /jobs/{id}/cancel``, ``GET /jobs/{id}`` and ``POST
/webhooks/openai``; every call is made with the world released (``WorldLock.call_unlocked``), so
the candidate can reach the services while it answers. A *step* is a window of one scenario
second in which the candidate works by itself; its report is sampled after every request it
makes, and each change is recorded, as in-process. A step made progress while a request of the
candidate is in flight, or when the world changed (a service's state, a person's action, a fault,
the report) less than ``QUIET_S`` scenario seconds ago: the candidate is given time to react.

A crash is SIGKILL to the candidate's group from inside the request at the chosen point (before
the service handles it, or after it committed, before the answer is written); a restart starts
the command again on the same database. A 5xx answer from the control API is the candidate's own
error, and so is exiting by itself: both are recorded (``candidate_errors``) and it is restarted,
up to a bound. A candidate that cannot start, does not become healthy in time, answers something
that is not the contract's JSON or stops answering cannot be run: ``CandidateFailed`` (exit 3),
with its last lines of output. The process is killed on every way out (``close``).

It deliberately does not decide when to step or what to check; the run loop does.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol
from urllib.parse import quote

import httpx

from durable_harness.harness._errors import HarnessError
from durable_harness.harness._history import History
from durable_harness.harness._realtime import DEFAULT_TIME_SCALE, CallAbandoned, CallTimeout, RealBound, RealTimeClock
from durable_harness.harness._rundoc import redact_text
from durable_harness.harness._supervisor import Child, SpawnError, spawn
from durable_harness.harness.candidate._claims import RefusedReport, ReportSampler
from durable_harness.harness.candidate._command import CandidateCommand
from durable_harness.harness.candidate._environ import candidate_environ
from durable_harness.harness.drivers._ports import START_VARIABLE, held_by_another, listen_port, lost, release, start_id
from durable_harness.harness.drivers._process_env import STARTUP_ENV, log_secrets, offers_clock, served_at, startup_timeout_s
from durable_harness.harness.candidate._driver import CandidateFailed
from durable_harness.harness.candidate._protocol import CandidateCrashed, CandidateEnv, CandidateRunaway

if TYPE_CHECKING:
    from durable_harness.harness._serving import Served

__all__ = ["ProcessDriver", "ProcessWorld"]

# The calls whose answer changes what the candidate may do from then on (a cancel, a task or its
# allowed tools): their record waits until every request sent before the answer is recorded (about
# 2 ms). A webhook's or a report's answer authorises nothing, and is recorded as it comes.
_ORDERED = frozenset({"cancel", "submit"})
CALL_TIMEOUT_S = 30.0  # real seconds for one control-API call, at the default time scale (10)
STEP_WINDOW_S = 1.0  # scenario seconds of one step
DEPLOY_GRACE_S = 10.0  # scenario seconds a deployed-over version has to stop after SIGTERM
QUIET_S = 5.0  # scenario seconds without a change in the world before a step says it made no progress
IDLE_POLL_S = 0.005  # real seconds between two looks at whether a candidate on the harness's clock is idle
HEALTH_POLL_S = 0.05
EXIT_GRACE_S = 2.0  # real seconds a refused call waits for the process's exit under way
TIME_HEADER = "X-Harness-Time"  # on every call: the run's time now, in scenario seconds
_MAX_WAKES = 100_000
_PORT_RETRIES = 3  # starts lost because another process took the candidate's port first (``_ports``)
_MAX_ERRORS = 50
_TAIL_LINES = 6
_SNIPPET = 120


class ProcessWorld(Protocol):
    """What the process driver needs of the World."""

    clock: Any  # a RealTimeClock
    history: History
    workdir: Path

    @property
    def secrets(self) -> tuple[str, ...]: ...
    @property
    def requests(self) -> int: ...
    def mutations(self) -> int: ...
    def env(self, worker_id: str) -> CandidateEnv: ...
    def serve(self, worker_id: str, on_crash: Callable[[CandidateCrashed], None]) -> Served: ...
    def idle(self) -> bool: ...


class ProcessDriver:
    def __init__(self, command: CandidateCommand, world: ProcessWorld, *, worker_id: str = "worker-1",
                 max_restarts: int = 25) -> None:
        if not isinstance(world.clock, RealTimeClock):
            raise HarnessError("the process driver needs a world on real (compressed) time")
        self._command = command
        self._world = world
        self._clock: RealTimeClock = world.clock
        self._lock = world.clock.lock
        # A call may wait for a step's I/O, which lasts scenario seconds: 30 real seconds at scale 10,
        # as many scenario seconds at a slower scale (the wall clock of a sessions API by URL: 300 s).
        self._call_timeout_s = CALL_TIMEOUT_S * max(1.0, DEFAULT_TIME_SCALE / self._clock.scale)
        self._history = world.history
        self.worker_id = worker_id
        self.max_restarts = max_restarts
        self.last_death: str | None = None
        self.log_path = world.workdir / f"candidate-{worker_id}.log"
        self._owner = threading.current_thread()
        self._served: Served | None = None
        self.solo = True  # the only worker of its run (Workers says otherwise)
        self.frozen = False  # stopped by SIGSTOP (a pause): no call reaches it
        self._spared_crash = False
        self._killed_at_io = False  # a crash point killed the process since it was last started
        self._child: Child | None = None
        self._http: httpx.Client | None = None
        self._alive = False
        self._failed: str | None = None
        self._restarts = 0
        self._starts = 0
        self.startups_s: list[float] = []  # real seconds each start took until healthy (not the run's time)
        self.clock_mode = "real"  # "harness": its last start said it takes its time from the harness (it may jump)
        self._capabilities: frozenset[str] = frozenset()
        self._lease_ttl_s: float | None = None
        self._errors: list[dict[str, Any]] = []
        self._jobs: list[str] = []
        self._sampler = ReportSampler(world.history, world.clock.now, worker_id)
        self._port, self._port_lost = 0, 0  # the port it was told to listen on; starts lost to a taken port
        self._start_id = ""  # HARNESS_START_ID of its current start (``_ports``)
        self._secrets: tuple[str, ...] = ()
        self._seen: tuple[int, int, str | None] = (-1, -1, None)
        self._changed_at = 0.0
        self._scanned = self._acted = 0

    @property
    def alive(self) -> bool:
        return self._alive

    @property
    def restarts(self) -> int:
        return self._restarts

    @property
    def candidate_errors(self) -> list[dict[str, Any]]:
        return list(self._errors)

    def accepts(self, capability: str) -> bool:
        return capability in self._capabilities

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> None:
        if self._served is None:
            self._served = self._world.serve(self.worker_id, self._crashed_at_io)
            note: dict[str, Any] = {"command": self._command.line, "time_scale": self._clock.scale,
                                    **self._served.note}
            if self.worker_id != "worker-1":
                note["worker"] = self.worker_id
            self._history.append(self._clock.now(), "note", "harness", {"process_driver": note})
        self._spawn()
        self._wait_healthy()

    def _fault_kinds(self) -> list[str]:
        scenario = getattr(self._world, "scenario", None)
        return [str(f.kind) for f in getattr(scenario, "faults", ())]

    def _spawn(self, *, lost_port: bool = False) -> None:
        assert self._served is not None
        env = self._world.env(self.worker_id)
        if not self._secrets:
            self._secrets = log_secrets(self._world.secrets, env)
        release(self._port)  # its last start's port, if it had one: the other harnesses may have it again
        self._port, self._start_id = listen_port(), start_id()
        if self.solo or self._starts == 0:  # the run's time stands still until it is up again, as a restart
            self._clock.pause()             # in-process takes none (with several workers, the others work on)
        contract = {**served_at(env.environ(), self._served.bases), "CANDIDATE_LISTEN": self._listen,
                    START_VARIABLE: self._start_id,
                    "HARNESS_TIME_SCALE": f"{self._clock.scale:g}", "HARNESS_TIME_ORIGIN": f"{self._clock.origin_unix:.6f}",
                    "HARNESS_TIME_START": f"{self._clock.now():.6f}",
                    **({"HARNESS_CLOCK_URL": self._served.clock_url}
                       if offers_clock(fault_kinds=self._fault_kinds()) else {})}
        self._served.idleness.started()
        self._starts += 1
        self._killed_at_io = False
        why = "; the last start lost its port to another process" if lost_port else ""
        banner = (f"--- durable-harness: start {self._starts} of {self.worker_id}: {self._command.line} "
                  f"(CANDIDATE_LISTEN={self._listen}{why}) ---")
        try:
            self._child = spawn(self._command.argv, candidate_environ(os.environ, {"PYTHONUNBUFFERED": "1", **contract}),
                                self.log_path,
                                cwd=Path.cwd(), redact=self._redact, on_exit=self._lock.notify, banner=banner)
        except SpawnError as err:
            raise CandidateFailed(f"{self.worker_id}: {err.strerror}") from None
        if self._http is not None:
            self._http.close()
        self._http = httpx.Client(base_url=f"http://{self._listen}", timeout=self._call_timeout_s)
        self._alive = True

    @property
    def _listen(self) -> str:
        """``CANDIDATE_LISTEN`` of its current start."""
        return f"127.0.0.1:{self._port}"

    def _wait_healthy(self) -> None:
        limit = startup_timeout_s()
        bound, garbled = RealBound(limit), 0
        for _ in range(_MAX_WAKES):
            child, http = self._child, self._http
            assert child is not None and http is not None
            if not child.alive():
                if self._killed_at_io:  # a crash point fired on a request it made on its way up: a crash
                    self._restart_after_startup_crash()  # like any other, then a restart
                    bound = RealBound(limit)
                    continue
                self._alive = False
                if self._port_lost < _PORT_RETRIES and lost(self._port):  # another process took its port first:
                    self._port_lost += 1                                   # the harness's loss; another port
                    self._spawn(lost_port=True)
                    bound = RealBound(limit)
                    continue
                self._give_up(f"exited at start with status {child.returncode}")
            try:
                response: httpx.Response | None = self._lock.call_unlocked(
                    lambda: http.get("/health", headers=self._time_header(), timeout=1.0), 5.0)
            except (httpx.TransportError, CallTimeout) as err:
                response = None
                garbled = garbled + 1 if isinstance(err, httpx.RemoteProtocolError) else 0
                if garbled >= 3:
                    self._give_up(f"answered GET /health on {self._listen} with something that is not HTTP ({err})")
            if response is not None and self._imposter():  # another harness's candidate answered on its port
                bound = RealBound(limit)
                continue
            if response is not None and response.status_code == 200:
                health = _object(response)
                caps: Any = health.get("capabilities", []) if health is not None else None
                if not isinstance(caps, list) or not all(isinstance(c, str) for c in caps):
                    self._give_up(f"answered GET /health with {_snippet(response)!r}: the contract wants a JSON object "
                                  "such as {\"ok\": true, \"capabilities\": [\"webhooks\"]}")
                self._capabilities = frozenset(caps)
                lease = health.get("lease_ttl_s") if health is not None else None
                self._lease_ttl_s = float(lease) if isinstance(lease, (int, float)) and not isinstance(lease, bool) \
                    and 0 < lease < float("inf") else None
                self.startups_s.append(round(bound.elapsed(), 3))
                harness_clock = health is not None and health.get("clock") == "harness"
                self.clock_mode = "harness" if harness_clock else "real"
                assert self._served is not None
                self._served.idleness.declare(harness_clock)
                self._history.append(self._clock.now(), "note", "harness", {"started": {
                    "worker": self.worker_id, "start": self._starts, "startup_s": self.startups_s[-1],
                    **({"clock": "harness"} if harness_clock else {})}})
                self._clock.resume()
                return
            if bound.expired():
                self._give_up(f"did not answer GET /health with 200 within {limit:g} s: it had been starting for "
                              f"{bound.elapsed():.1f} s when the harness gave up (does it listen on "
                              f"CANDIDATE_LISTEN={self._listen}? a slow start on a busy machine: set {STARTUP_ENV} "
                              f"higher)")
            self._lock.wait(HEALTH_POLL_S)
        self._give_up("never became healthy")

    def _imposter(self) -> bool:
        """Whether the answer came from a process another harness started (its candidate took the port
        first, and this one, still starting, did not exit when its bind failed): the harness's loss, as a
        port taken before the bind; this start is killed and the candidate started on another port."""
        child = self._child
        other = held_by_another(self._port, self._start_id, child.pid if child is not None else None)
        if other is None:
            return False
        self._kill()
        if self._port_lost >= _PORT_RETRIES:
            raise HarnessError(f"{self.worker_id}: {_PORT_RETRIES + 1} starts in a row found the port they were named "
                               f"taken by a process another harness started (the last: pid {other} on "
                               f"{self._listen}); no candidate of this run answered")
        self._port_lost += 1
        self._spawn(lost_port=True)
        return True

    def _restart_after_startup_crash(self) -> None:
        if self._restarts >= self.max_restarts:
            raise CandidateFailed(f"{self.worker_id}: restarted {self._restarts} times and still crashing; "
                                  f"last death: {self.last_death}")
        self._restarts += 1
        self._history.append(self._clock.now(), "restart", self.worker_id,
                             {"restart": self._restarts, "because": "crashed while starting"})
        self._spawn()

    def restart(self, because: str) -> None:
        if self._failed is not None:
            raise CandidateFailed(self._failed)
        if self._restarts >= self.max_restarts:
            raise CandidateFailed(f"{self.worker_id}: restarted {self._restarts} times and still crashing; "
                                  f"last death: {self.last_death or because}")
        self._kill()
        self._restarts += 1
        self._history.append(self._clock.now(), "restart", self.worker_id,
                             {"restart": self._restarts, "because": because})
        self._spawn()
        self._wait_healthy()

    def redeploy(self, spec: str, because: str) -> None:
        """A deploy: SIGTERM to the group, up to ``DEPLOY_GRACE_S`` of scenario time (at least a real
        second) to stop by itself, then SIGKILL; the next version's command starts on the same
        database. Not a crash: no restart budget."""
        from durable_harness.harness.candidate._command import parse_command

        command = parse_command(spec)
        child = self._child
        if child is not None and child.alive():
            child.signal(signal.SIGTERM)
            bound = RealBound(max(1.0, DEPLOY_GRACE_S / self._clock.scale))
            while child.alive() and not bound.expired():
                self._lock.wait(HEALTH_POLL_S)
            stopped = "stopped by itself" if not child.alive() else "killed after the grace period"
        else:
            stopped = "was not running"
        self._kill()
        self._command = command
        self._history.append(self._clock.now(), "restart", self.worker_id,
                             {"because": f"{because} (the old version {stopped})", "deployed": spec})
        self._spawn()
        self._wait_healthy()

    def close(self) -> None:
        """Kill the candidate, end the run's time, close what the world served: on every way out of a run."""
        self._kill()
        release(self._port)
        self._clock.stop()
        if self._served is not None:
            self._served.close()
        now = self._clock.now()
        for invoke, done in self._history.operations():
            if done is None and invoke.op is not None and self._history.is_open(invoke.op):
                self._history.complete(now, invoke.op, "info", {"error": "the run ended before the answer"})
        if self._http is not None:
            self._http.close()

    @property
    def lease_ttl_s(self) -> float | None:
        """The lease the candidate declares in ``GET /health`` (``lease_ttl_s``), if any."""
        return self._lease_ttl_s

    def kill(self, because: str, *, spare_op: int | None = None) -> None:
        """SIGKILL (the contract's crash); its open requests are the server's to complete. With
        ``spare_op`` (killed while paused, its request held), the crash the gate then records for
        that request is this death, not a new one: it kills nothing more (a restart may be up by then)."""
        self.last_death = because
        if spare_op is not None:
            self._spared_crash = True
        self._died()

    def freeze(self) -> None:
        """SIGSTOP to its group: it keeps its memory, its connections and its locks, and does nothing."""
        self.frozen = True
        if self._child is not None:
            self._child.signal(signal.SIGSTOP)
            self._history.append(self._clock.now(), "note", "harness", {"sigstop": self.worker_id})
        self._lock.notify()  # a call it has now gets no answer: whoever waits on it goes on

    def thaw(self) -> None:
        """SIGCONT: it goes on where it stopped (its clocks jumped meanwhile)."""
        if self._child is not None and self.frozen and self._alive:
            self._child.signal(signal.SIGCONT)
            self._history.append(self._clock.now(), "note", "harness", {"sigcont": self.worker_id})
        self.frozen = False

    def _kill(self) -> None:
        self._alive = False
        if self._child is not None:
            self._child.kill()

    def _crashed_at_io(self, crash: CandidateCrashed) -> None:
        """The gate's crash point (a server thread, the world held): SIGKILL before any answer is written."""
        if isinstance(crash, CandidateRunaway):
            self._failed = str(crash)
        if self._spared_crash:  # the gate's record of a death by a pause: already dead
            self._spared_crash = False
            return
        self._killed_at_io = True
        self.last_death = str(crash)
        self._died()

    def _died(self) -> None:
        """It crashed: the run's time stands still until the restart is up (in-process a restart is
        instant); with several workers it goes on, for the others."""
        if self.solo:
            self._clock.pause()
        self._kill()

    def _time_header(self) -> dict[str, str]:
        return {TIME_HEADER: f"{self._clock.now():.6f}"}

    # -- the control API -------------------------------------------------------------------
    def submit(self, job: Mapping[str, Any]) -> Mapping[str, Any] | None:
        if str(job.get("job_id")) not in self._jobs:
            self._jobs.append(str(job.get("job_id")))
        response = self._call("submit", "POST", "/jobs", json=dict(job))
        return None if response is None else self._answer("submit", response)

    def cancel(self, job_id: str) -> Mapping[str, Any] | None:
        response = self._call("cancel", "POST", f"/jobs/{quote(job_id, safe='')}/cancel")
        return None if response is None else self._answer("cancel", response)

    def report(self, job_id: str) -> Mapping[str, Any] | None:
        """The report, checked as under every driver (``ReportSampler``): an answer that is not a
        JobReport (not JSON, not an object, a wrong field) is an invalid report, not a crash."""
        response = self._call("report", "GET", f"/jobs/{quote(job_id, safe='')}")
        if response is None or response.status_code == 404:
            return None
        if response.status_code >= 400:
            self._history.append(self._clock.now(), "note", self.worker_id,
                                 {"because": f"GET /jobs/{job_id} answered HTTP {response.status_code}"})
            return None
        try:
            said: object = json.loads(response.content)
        except ValueError:
            said = RefusedReport(f"GET /jobs/{job_id} answered {_snippet(response)!r}, which is not JSON (a JobReport "
                                 "is a JSON object with an outcome; see docs/contract.md)")
        return self._sampler.sample(said)

    def deliver_webhook(self, headers: Mapping[str, str], body: bytes) -> int | None:
        response = self._call("receive_webhook", "POST", "/webhooks/openai", headers=dict(headers), content=bytes(body),
                              own_errors=False)
        return None if response is None else response.status_code

    def step(self) -> bool | None:
        """One window of scenario time in which the candidate works; its report sampled after its requests."""
        if self._failed is not None:
            raise CandidateFailed(self._failed)
        if not self._alive:
            return None
        requests = self._world.requests
        end = self._clock.now() + STEP_WINDOW_S
        for _ in range(_MAX_WAKES):
            left = end - self._clock.now()
            if left <= 0:
                break
            self._skip_idle(end)
            left = end - self._clock.now()
            if left > 0:  # on the harness's clock, look again soon: its idleness comes without a notice
                harness = self._served is not None and self._served.idleness.declared
                self._clock.wait(min(left, IDLE_POLL_S * self._clock.scale) if harness else left)
            if not self._alive or not self._check_running("step"):
                return None
            if self._world.requests != requests:
                requests = self._world.requests
                for job_id in list(self._jobs):
                    self.report(job_id)
                    if not self._alive:
                        return None
            self._observe()
        self._observe()
        waiting = self._served is not None and self._served.dispatching > 0
        return waiting or self._clock.now() - self._changed_at < QUIET_S

    def _skip_idle(self, until_s: float) -> None:
        """While every candidate process waits on the harness, the run's time skips to what is due
        next (a timer, the end of a wait on the clock: a stream's next event, a lost answer's
        timeout, a candidate's own wait), ``until_s`` at the latest."""
        if self._world.idle():
            due = [t for t in (self._clock.next_deadline(), self._clock.parked_until()) if t is not None]
            self._clock.advance_to(min([until_s, *due]))

    def _observe(self) -> None:
        """Note when the world last changed: a service's state, a person's action or a fault, the report."""
        for index in range(self._scanned, len(self._history)):
            if self._history[index].type in ("action", "fault"):
                self._acted += 1
        self._scanned = len(self._history)
        seen = (self._world.mutations(), self._acted, self._sampler.last)
        if seen != self._seen:
            self._seen, self._changed_at = seen, self._clock.now()

    # -- calls -----------------------------------------------------------------------------
    def _call(self, what: str, method: str, path: str, *, own_errors: bool = True,
              **kwargs: Any) -> httpx.Response | None:
        """One control-API request; None when the candidate died in it (it is then not alive)."""
        if self._failed is not None:
            raise CandidateFailed(self._failed)
        if self.frozen:  # stopped (or killed) for a pause: it cannot answer, and it is not its fault
            return None
        if not self._alive:
            if threading.current_thread() is not self._owner:  # a person acting from a request: nobody to tell
                return None
            self.restart("not running")
        child, http = self._child, self._http
        assert child is not None and http is not None
        headers = {**kwargs.pop("headers", {}), **self._time_header()}
        if self._served is not None:  # a POST gives it work: busy, not idle; any call ends a wait with wake=1
            self._served.idleness.called(work=method == "POST")
            self._lock.notify()
        try:
            harness = self._served is not None and self._served.idleness.declared
            response: httpx.Response = self._lock.call_unlocked(
                lambda: http.request(method, path, headers=headers, **kwargs), self._call_timeout_s + 1.0,
                abandon=lambda: self.frozen, every_s=IDLE_POLL_S,  # it may answer once its step waited for the world
                meanwhile=(lambda: self._skip_idle(self._clock.now() + STEP_WINDOW_S)) if harness else None)
        except CallAbandoned:  # frozen (or killed) by a pause while it had the call: no answer, and the run's
            return None        # loop goes on with the others (a client does not wait on a stopped server)
        except (httpx.TransportError, CallTimeout) as err:
            if child is not self._child or not self._alive:
                return None  # killed meanwhile: a crash point
            if not self._check_running(what, grace_s=0.0 if isinstance(err, (httpx.TimeoutException, CallTimeout))
                                       else EXIT_GRACE_S):
                return None
            if isinstance(err, (httpx.TimeoutException, CallTimeout)):
                self._give_up(f"did not answer {method} {path} within {self._call_timeout_s:g} s (it stopped answering)")
            self._give_up(f"is running but refused {method} {path} ({type(err).__name__}: {err})")
        if what in _ORDERED and self._served is not None:  # what it sent before it answered came before
            self._served.arrived()                            # the answer, though this process read it after
        if own_errors and response.status_code >= 500:
            why = f"{what}: {method} {path} answered HTTP {response.status_code}: {_snippet(response)}"
            self._own_crash(what, f"http_{response.status_code}", why)
            return None
        return response

    def _answer(self, what: str, response: httpx.Response) -> Mapping[str, Any]:
        answer = _object(response)
        if answer is None:
            self._give_up(f"answered {what} with {_snippet(response)!r}, which is not a JSON object "
                          "(see docs/contract.md)")
        return answer if response.status_code < 300 else {"http_status": response.status_code, **answer}

    def _check_running(self, what: str, *, grace_s: float = 0.0) -> bool:
        """Whether the process still runs; if it exited by itself, that is recorded as its own crash.
        ``grace_s``: real seconds to wait for an exit under way (a refused call from a dying process)."""
        child = self._child
        bound = RealBound(grace_s)
        while child is not None and child.alive() and not bound.expired():
            self._lock.wait(HEALTH_POLL_S)
        if child is None or child.alive():
            return True
        self._own_crash("process", "exit", f"exited by itself with status {child.returncode} (during {what})")
        return False

    def _own_crash(self, method: str, kind: str, why: str) -> None:
        """The candidate's own failure: recorded as its error and a crash, then it is restarted."""
        number = self._record_error(method, kind, why)
        self._history.append(self._clock.now(), "crash", self.worker_id, {"because": why, "candidate_error": number})
        self.last_death = why
        self._died()

    def _give_up(self, why: str) -> NoReturn:
        """The candidate cannot be run: kill it and say why, with its last lines."""
        self._kill()
        self._failed = f"{self.worker_id}: {self._command.line!r} {why}{self._tail()}"
        raise CandidateFailed(self._failed)

    def _tail(self) -> str:
        lines = self._child.last_lines(_TAIL_LINES) if self._child is not None else []
        lines = [line.strip()[:200] for line in lines if line.strip()]
        return f"; its last output: {' | '.join(lines)}" if lines else "; it printed nothing"

    def _record_error(self, method: str, kind: str, message: str) -> int:
        if len(self._errors) < _MAX_ERRORS:
            lines = self._child.last_lines(_TAIL_LINES * 2) if self._child is not None else []
            self._errors.append({"method": method, "type": kind, "message": message[:500], "frames": lines,
                                 "history_index": len(self._history), "time_s": round(self._clock.now(), 6)})
        return len(self._errors)

    def _redact(self, line: str) -> str:
        return redact_text(line, self._secrets)


def _object(response: httpx.Response) -> dict[str, Any] | None:
    try:
        value = json.loads(response.content or b"{}")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _snippet(response: httpx.Response) -> str:
    text = response.content[:_SNIPPET].decode("utf-8", "replace")
    return text + ("..." if len(response.content) > _SNIPPET else "")
