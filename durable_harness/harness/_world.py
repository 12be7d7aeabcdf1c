"""The world of one run: seed, virtual clock, history, the services, the gate, the nemesis and the job.

It assembles from the registries (the scenario's workload, every registered service, the fault
kinds the scenario names); it does not drive (``_run`` does) and it does not judge (checkers do).
Secrets (each service's credentials) are drawn from the run's seed, handed to the candidate, and
redacted from everything the run writes.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import httpx

from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._errors import HarnessError
from durable_harness.harness._gate import Gate
from durable_harness.harness._history import History
from durable_harness.harness._seeds import component_random
from durable_harness.harness._nemesis import Nemesis
from durable_harness.harness._realtime import RealTimeClock, WorldLock
from durable_harness.harness._webhook_delivery import WebhookDelivery
from durable_harness.harness.candidate import CandidateCrashed, CandidateEnv, Driver
from durable_harness.harness.candidate._env import build_env, env_data
from durable_harness.harness.isolation._sdk_time import patch_here, sdk_retries_on_virtual_time
from durable_harness.harness.actions import get_action_kind
from durable_harness.harness.actions.user import next_version
from durable_harness.harness.faults import RequestFault, get_fault_kind
from durable_harness.harness.scenario import Scenario
from durable_harness.harness.services import BuiltService, ServiceContext, services
from durable_harness.harness.services._upstream import upstreams, with_namespace
from durable_harness.harness.workloads import get_workload

if TYPE_CHECKING:
    from durable_harness.harness._serving import Served

__all__ = ["CandidateClockView", "World"]

SLEEP_MARGIN_S = 3600.0


class CandidateClockView:
    """The clock as the candidate sees it: ``now``, ``unix`` and ``sleep`` of the run's virtual
    clock, except that sleeping past the run's hard deadline kills the candidate (a candidate that
    waits forever must not hang the harness)."""

    def __init__(self, clock: VirtualClock, hard_deadline_s: float, history: History, process: str,
                 fail: Callable[[HarnessError], HarnessError], woke: Callable[[], None] | None = None) -> None:
        self._fail = fail
        self._woke = woke  # what the world does when the candidate wakes (webhooks during a step)
        self._clock = clock
        self._hard_deadline_s = hard_deadline_s
        self._history = history
        self._process = process

    def now(self) -> float:
        return self._clock.now()

    def unix(self) -> int:
        return self._clock.unix()

    def sleep(self, seconds: float) -> None:
        if self._clock.now() + seconds > self._hard_deadline_s:
            why = f"slept past the run's hard deadline of {self._hard_deadline_s:g} s (waiting forever?)"
            self._history.append(self._clock.now(), "crash", self._process, {"because": why})
            raise CandidateCrashed(f"{self._process}: {why}")
        try:
            self._clock.sleep(seconds)
        except (HarnessError, CandidateCrashed):
            raise
        except Exception as err:  # a timer of the world (an agent thinking) failed: the harness's error
            raise self._fail(HarnessError.wrap("a timer of the world", err)) from err
        if self._woke is not None:
            self._woke()


class World:
    """One run's world. The run loop talks to it, not to its parts: ``heal()``, ``begin_step()``,
    ``after_step(driver)``, ``check()`` (raises the harness's own error, if one happened), ``truth()``."""

    def __init__(self, scenario: Scenario, seed: int, workdir: Path, *, time_scale: float | None = None) -> None:
        if upstreams():  # a real service: the job's id gets a suffix of its own (``services._upstream_wordpress``)
            scenario = with_namespace(scenario)
        self.scenario = scenario
        self.seed = seed
        self.shared_database: str | None = None  # several worker processes: a scratch PostgreSQL database
        self.served: list[Served] = []  # what each candidate process was served (``serve``)
        self.reach: set[str] | None = None  # explore's: the candidate code its instances ran (``isolation/_reach``)
        self.workdir = workdir
        self.run_id = f"{scenario.run_name}-{seed}"
        self.lock = WorldLock()  # uncontended in-process; the process driver's servers share the world through it
        # Virtual time in-process; real time, compressed ``time_scale`` times, when the candidate is a process.
        self.clock = VirtualClock() if time_scale is None else RealTimeClock(
            time_scale, self.lock, wall="openai" in upstreams())  # a sessions API by URL keeps the wall clock
        if isinstance(self.clock, RealTimeClock):  # the run's time begins when its first candidate is up
            self.clock.pause()                     # (its driver resumes it), as in-process: set-up takes none
        self.history = History()
        w = scenario.workload
        self.workload = get_workload(w.kind)
        self.job: dict[str, Any] = self.workload.build_job(w.job_id, w.task_version, w.params)
        if w.allowed_tools is not None:
            self.job["allowed_tools"] = list(w.allowed_tools)
        self._version_of: dict[int, str] = {}  # the task version each change_task action submits, by its index
        self.jobs = self._versions(scenario)  # every version the run will see, so the agent knows each
        jobs = self.jobs
        self.driver: Driver | None = None
        self.workers: Any = None  # harness._workers.Workers when the scenario has several workers
        self.services: dict[str, BuiltService] = {
            spec.name: spec.build(ServiceContext(self.clock, self.history, seed, jobs, self.workload,
                                                 scenario.services.get(spec.name, {})))
            for spec in services()}
        faults = [get_fault_kind(f.kind)(i, f.at, f.params) for i, f in enumerate(scenario.faults)]
        for fault, spec in zip(faults, scenario.faults):
            fault.reach_required = spec.reach_required
        actions = [get_action_kind(a.kind)(len(faults) + i, a.at, {**a.params, "task_version": self._version_of[i]}
                                           if i in self._version_of else a.params,
                                           when=a.when, delay_s=a.delay_s, at_s=a.at_s)
                   for i, a in enumerate(scenario.actions)]
        conditions = {name: check for b in self.services.values() for name, check in b.conditions.items()}
        conditions.update({name: functools.partial(self._workload_condition, check)
                           for name, check in self.workload.conditions.items()})
        effects = {name: e for b in self.services.values() for name, e in b.effects.items()}
        effects["restart_worker"] = self._restart_worker
        self.nemesis = Nemesis(self.clock, self.history, faults, conditions, effects=effects, actions=actions)
        self.nemesis.world = self
        self.nemesis.schedule()
        sessions = self.services.get("openai")
        if sessions is not None and hasattr(sessions.fake, "hold_thoughts"):
            sessions.fake.hold_thoughts(self._awaited_while_working, self._slow_thoughts)
        self.gate = Gate(self.clock, self.history, [b.fake for b in self.services.values()], self.nemesis,
                         error_responses={name: b.error_response for name, b in self.services.items()})
        self.gate.classify = self._classify
        self.webhooks = WebhookDelivery(self.services["openai"].fake, self.clock, self.history, self.nemesis)
        if scenario.services.get("openai", {}).get("webhooks_during_steps"):
            self.gate.during = self._webhooks_during_step
        self.clock.on_jump(self._record_jump)
        self._clients: list[httpx.Client] = []
        self.fork: Any = None  # a crash point forked from a sweep's clean run (``_sweep_fork``): it ends the run
        self.candidate_next: str | None = None  # what a ``deploy`` starts (the run sets it)
        self._deploy_due = False

    def _restart_worker(self, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """The world effect of ``restart_worker``: kill the named workers (never the requester); the
        run restarts each at its next turn. None when there is no such worker alive to kill.
        ``params["on_back"]``, when given, is called as each is up again: ``(worker_id, at_once,
        history, now_s)``, ``at_once`` when its start took none of the run's time (in-process)."""
        if self.workers is None:
            return None
        who, requester = str(params.get("worker", "other")), str(params.get("requester"))
        victims = [d for d in self.workers.drivers if d.worker_id != requester and d.alive
                   and d.worker_id not in self.workers.frozen and who in ("other", d.worker_id)]
        for driver in victims:
            # It comes back at once: in-process now (a start takes none); as a process on a thread of
            # its own while the others work on (its start takes real time).
            because = f"killed while {requester} worked (restart_worker)"
            driver.kill(because)
            self.history.append(self.clock.now(), "crash", driver.worker_id,
                                {"because": f"killed while {requester} worked; restarted at once"})
            on_back = params.get("on_back")
            if isinstance(self.clock, RealTimeClock):
                self.workers.restart_apart(driver, because, None if on_back is None else (
                    lambda w=driver.worker_id: on_back(w, False, self.history, self.clock.now())))
            else:
                driver.restart(because)
                if on_back is not None:
                    on_back(driver.worker_id, True, self.history, self.clock.now())
        return {"killed": [d.worker_id for d in victims], "requester": requester} if victims else None

    def _slow_thoughts(self) -> float | None:
        """How long an agent's thought may last now (None: as long as it does). While a worker's
        process starts beside the others (``restart_worker``), its start takes real seconds, and so
        the run's time, while the others work on; in-process a start takes none. Thoughts then last
        up to half the shortest lease the workers declared: the job lasts longer, so that it is still
        under way when the worker is back, and the worker that holds it still writes within its
        lease (the stale-writer rule of ``docs/contract.md`` counts a lease from the last write)."""
        if self.workers is None or not self.workers.restarting():
            return None
        leases = [d.lease_ttl_s for d in self.workers.drivers if getattr(d, "lease_ttl_s", None)]
        return min(leases) / 2 if leases else None

    def _awaited_while_working(self) -> bool:
        """Whether a fault or an action still waits for a request made while the agent works: the agent
        then keeps working a little longer (bounded), so that a design that polls at its own pace,
        or a process whose real time runs ``scale`` times faster, makes one while it does."""
        for entry in self.nemesis.plan:
            waits = entry.trigger.condition == "agent_working" or getattr(entry, "when", None) == "agent_working"
            if waits and entry.state.fired < entry.scheduled and not (self.nemesis.healed and entry in self.faults):
                return True
        return False

    def _classify(self, service: str, route: str, request: Any) -> frozenset[str]:
        """What ``request`` does to the world, as its service names it (trigger targets)."""
        built = self.services.get(service)
        if built is None or built.classify is None:
            return frozenset()
        return built.classify(request, route, self._role_of)

    def _role_of(self, kind: str, record: Mapping[str, Any]) -> str | None:
        """The role of this run's job that a post or an upload (as ground truth would show it) is,
        by the workload's own attribution (a watermark, the bytes of a generated image)."""
        openai = self.services.get("openai")
        owner = getattr(openai.fake, "payload_owner", None) if openai is not None else None
        sha = record.get("sha256")
        found = owner(sha) if kind == "media" and owner is not None and isinstance(sha, str) else None
        payloads = {sha: found} if found else {}
        truth = {"wordpress": {"posts" if kind == "post" else "media": [{"id": 0, **record}]},
                 "openai": {"payloads": payloads}}
        job_id = str(self.job["job_id"])
        return next((e.role for e in self.workload.effects(truth) if e.job_id == job_id), None)

    def _workload_condition(self, check: Callable[[dict[str, Any], dict[str, Any], str | None], bool], arg: str | None) -> bool:
        return check(self.truth(), self.job, arg)

    def _versions(self, scenario: Scenario) -> dict[tuple[str, str], dict[str, Any]]:
        """Every task version the scenario's ``change_task`` actions make, in the order they are listed
        (each action's version is fixed here: ``_version_of``, whatever order they fire in)."""
        jobs = {(str(self.job["job_id"]), str(self.job["task_version"])): self.job}
        current = self.job
        for i, action in enumerate(scenario.actions):
            if action.kind == "change_task":
                version = str(action.params.get("task_version") or next_version(str(current["task_version"])))
                current = self.workload.build_job(str(current["job_id"]), version,
                                                  {**current["input"], **(action.params.get("input") or {})})
                current["allowed_tools"] = list(self.job["allowed_tools"])
                jobs[(str(current["job_id"]), version)] = current
                self._version_of[i] = version
        return jobs

    @property
    def faults(self) -> list[RequestFault]:
        return self.nemesis.faults

    @property
    def secrets(self) -> tuple[str, ...]:
        return tuple(secret for b in self.services.values() for secret in b.secrets)

    def _record_jump(self, before_s: float, after_s: float) -> None:
        if after_s - before_s >= 60:  # small waits are noise; long jumps explain timelines
            self.history.append(after_s, "clock", "world", {"from_s": round(before_s, 6), "to_s": round(after_s, 6)})

    def serve(self, worker_id: str, on_crash: Callable[[CandidateCrashed], None]) -> Served:
        """Serve the services to candidate process ``worker_id`` on loopback servers of its own (the
        port says whose request it is), each behind a Toxiproxy proxy when a fault of the scenario acts
        on the network: ``toxic`` faults then act on those proxies, and the heal lifts them. ``on_crash``
        kills the candidate at a crash point. Its driver closes what it was served (``Served.close``)."""
        from durable_harness.harness._serving import serve

        if not isinstance(self.clock, RealTimeClock):
            raise HarnessError("a world on virtual time cannot be served on loopback: "
                               "make it with World(time_scale=...)")
        proxied = None
        if any(get_fault_kind(f.kind).network for f in self.scenario.faults):
            proxied = {name: b.fake.host for name, b in self.services.items()}
        served = serve(self.gate, self.clock, worker_id, on_crash, proxied=proxied, seed=self.seed)
        self.served.append(served)
        if served.network is not None:
            self.nemesis.effects["toxic"] = served.toxic
            self.nemesis.on_heal.append(served.network.heal)
        return served

    def idle(self) -> bool:
        """Whether every candidate process served takes its time from the harness and is idle now
        (``_idleness``): the run's time may then skip to what is due next."""
        if getattr(self.clock, "wall", False):  # a sessions API by URL: its agent thinks on the wall clock
            return False
        return bool(self.served) and all(s.idleness.idle() for s in self.served if not s.closed)

    @property
    def requests(self) -> int:
        """Requests the gate has handled so far, every worker's."""
        return self.gate.requests

    def mutations(self) -> int:
        """Committed changes of the services' state so far: the world changed when this did."""
        return sum(b.fake.mutations() for b in self.services.values())

    def database_url(self) -> str:
        """The candidate's store: SQLite beside the run, or the workers' shared database when one was made."""
        return self.shared_database or f"sqlite:///{self.workdir / 'candidate.sqlite'}"

    @property
    def sdk_max_retries(self) -> int:
        """The openai SDK's own retries in the candidate's client (``services.openai.sdk_max_retries``, default 0)."""
        return int(self.scenario.services.get("openai", {}).get("sdk_max_retries", 0))

    def sdk_retries(self) -> contextlib.AbstractContextManager[None]:
        """While the run goes: the SDK's retries wait on the run's clock, with seeded jitter (when they are on)."""
        if self.sdk_max_retries == 0 or not isinstance(self.clock, VirtualClock) or isinstance(self.clock, RealTimeClock):
            return contextlib.nullcontext()
        view = CandidateClockView(self.clock, self.hard_deadline_s, self.history, "worker-1", self.gate.fail)
        return sdk_retries_on_virtual_time(self.clock, view.sleep, component_random(self.seed, "sdk.retries"))

    def candidate_clock(self, worker_id: str) -> CandidateClockView:
        """The run's clock as candidate ``worker_id`` sees it (its sleeps bounded by the run's deadline)."""
        return CandidateClockView(self.clock, self.hard_deadline_s, self.history, worker_id, self.gate.fail,
                                  woke=self.gate.meanwhile)

    @property
    def hard_deadline_s(self) -> float:
        """Past this, a candidate that sleeps is waiting forever: the deadline, the quiesce, a margin."""
        return self.scenario.expect.deadline_s + self.scenario.expect.quiesce_s + SLEEP_MARGIN_S

    def env_data(self, worker_id: str) -> dict[str, Any]:
        """What one candidate instance's ``env`` is made of, as plain data (``durable_harness.harness.candidate._env``)."""
        return env_data({name: b.endpoint for name, b in self.services.items()}, self.database_url(), worker_id,
                        self.run_id, self.sdk_max_retries)

    def env(self, worker_id: str) -> CandidateEnv:
        """A fresh environment for one candidate instance in the harness's process: clients routed
        through the gate, on the run's clock."""
        patch_here()  # the candidate runs in this process: its SDK is this process's
        env, clients = build_env(self.env_data(worker_id), self.gate.transport, self.candidate_clock(worker_id))
        self._clients += clients
        return env

    # -- what the people acting in it need (durable_harness.harness.actions.ActionContext) ----------------------
    def candidate(self) -> Driver | None:
        """The worker people reach (with several workers: the first alive and not paused)."""
        return self.workers.front() if self.workers is not None else self.driver

    def set_job(self, job: dict[str, Any]) -> None:
        self.job = job

    def new_version(self, change: Mapping[str, Any]) -> dict[str, Any]:
        version = str(change.get("task_version") or next_version(str(self.job["task_version"])))
        return self.jobs[(str(self.job["job_id"]), version)]

    def request_deploy(self) -> dict[str, Any] | None:
        """The operator deploys: the next version starts at the run loop's next turn (between steps)."""
        if self.candidate_next is None or self.candidate() is None:
            return None
        self._deploy_due = True
        return {"deploy": self.candidate_next}

    def deploy_if_due(self, drivers: Sequence[Driver]) -> None:
        """Carry out a deploy the operator asked for: every worker stopped and started as the next version."""
        if not self._deploy_due or self.candidate_next is None:
            return
        self._deploy_due = False
        for driver in drivers:
            driver.redeploy(self.candidate_next, "the operator deployed a new version")
            self.check()

    # -- what the run loop asks of the world ---------------------------------------------------
    def heal(self) -> None:
        """Lift every fault (requests and webhooks are delivered as they are from now on)."""
        self.nemesis.heal()

    def begin_step(self) -> None:
        self.gate.begin_step()
        self.nemesis.tick()

    def waiting(self) -> bool:
        """Whether the run must go on: people have yet to act (they must get the chance), or a
        ``Retry-After`` the world sent has not passed (a candidate honouring it has not had its time)."""
        return self.nemesis.waiting() or self.clock.now() < self.gate.retry_after_until

    def after_step(self, driver: Driver) -> bool:
        """What the world does between steps (deliver pending webhooks); whether anything happened."""
        self.check()
        delivered = self.webhooks.pump(driver) > 0
        self.check()
        return delivered

    def _webhooks_during_step(self) -> None:
        """Pending webhooks arrive while the candidate is inside a step (before its next request is
        served), as they reach a server that is busy: the candidate does not choose when."""
        front = self.candidate()
        if front is not None:
            self.webhooks.pump(front)

    def check(self) -> None:
        """Raise the harness's own error if one happened (even if the candidate swallowed it)."""
        if self.gate.failure is not None:
            raise self.gate.failure

    def settle(self) -> None:
        """Once, before the checkers: a real service reads what it holds again (a fake holds it already)."""
        for built in self.services.values():
            if getattr(built.fake, "real", False):
                cast(Any, built.fake).settle()

    def truth(self) -> dict[str, Any]:
        """Every service's ground truth, and what people did (``people``: each action that took effect)."""
        truth: dict[str, Any] = {name: b.fake.truth() for name, b in sorted(self.services.items())}
        truth["people"] = [{"kind": a.kind, "actor": a.actor, **e} for a in self.nemesis.actions for e in a.state.evidence]
        return truth

    def close(self) -> None:
        for c in self._clients:
            c.close()
        self._clients.clear()
        for built in self.services.values():  # a real service: what the run made there is deleted (unless kept)
            if getattr(built.fake, "real", False):
                cast(Any, built.fake).close()
