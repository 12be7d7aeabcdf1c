"""Several workers of one candidate on one database (``workers: 2`` in a scenario): who runs when.

Each worker (``worker-1``, ``worker-2``, ...) is an instance of the candidate of its own, with its
own driver, given the same job. A round steps every worker that can run, in an order drawn from the
run's seed (``workers.order``): the same seed gives the same interleaving, and so the same history.
Workers interleave only between their steps, or when one is paused (``pause_worker``): the pause
holds that worker's request at the gate and, from inside it, runs the others for the pause's
length (``hold``), as a SIGSTOP would; the held request then goes on its way.

People and webhooks reach the *front* worker: the first one alive and not paused (a load balancer
sends nothing to a frozen process). A worker killed by a pause stays down until the pause ends.

What it deliberately does not do: drive a single worker (``_run`` keeps its loop exactly as it
is, so one-worker runs are unchanged) or judge interleavings (``unauthorized_calls`` does).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from durable_harness.harness._seeds import component_random
from durable_harness.harness._signals import raise_if_pending
from durable_harness.harness.candidate import CandidateFailed, Driver

__all__ = ["DEFAULT_PAUSE_S", "Workers"]

DEFAULT_PAUSE_S = 120.0  # a pause without for_s, for a candidate that declares no lease
_IDLE_POLL_S = 1.0
SETTLED = ("completed", "failed", "unknown", "needs_human", "cancelled")


class Workers:
    def __init__(self, world: Any, drivers: Sequence[Driver]) -> None:
        self.world = world
        self.drivers = list(drivers)
        for driver in self.drivers:
            if hasattr(driver, "solo"):
                driver.solo = False  # a process's death does not stop the run's time: the others work on
        self.frozen: set[str] = set()
        self.failure: BaseException | None = None  # a worker that could not be run during a pause
        self._restarting: list[threading.Thread] = []  # restarts going on beside the others (``restart_apart``)
        self._rng = component_random(world.seed, "workers.order")

    # -- who ---------------------------------------------------------------------------------
    def order(self) -> list[Driver]:
        """This round's order (seeded)."""
        drivers = list(self.drivers)
        self._rng.shuffle(drivers)
        return drivers

    def front(self) -> Driver:
        """The worker people and webhooks reach: the first alive and not paused."""
        for driver in self.drivers:
            if driver.alive and driver.worker_id not in self.frozen:
                return driver
        return next((d for d in self.drivers if d.worker_id not in self.frozen), self.drivers[0])

    def of(self, process: str) -> Driver | None:
        return next((d for d in self.drivers if d.worker_id == process), None)

    @property
    def restarts(self) -> int:
        return sum(d.restarts for d in self.drivers)

    @property
    def candidate_errors(self) -> list[dict[str, Any]]:
        return [e for d in self.drivers for e in d.candidate_errors][:50]

    # -- driving -----------------------------------------------------------------------------
    def round(self, steps: int, report_of: str) -> tuple[int, bool, Any]:
        """Step every worker that can run once: (steps taken, whether any progressed, the front
        worker's report of job ``report_of`` afterwards)."""
        world = self.world
        progressed = False
        world.deploy_if_due([d for d in self.drivers if d.alive and d.worker_id not in self.frozen])
        for driver in self.order():
            if driver.worker_id in self.frozen:
                continue
            if not driver.alive:
                driver.restart("crashed")
                world.check()
            world.begin_step()
            progressed = bool(driver.step()) or progressed
            world.check()
            if self.failure is not None:
                raise self.failure
            steps += 1
            if driver.alive and world.after_step(driver):
                progressed = True
            if driver.alive:
                driver.report(report_of)
                world.check()
        front = self.front()
        report = front.report(report_of) if front.alive else None
        world.check()
        return steps, progressed, report

    def drive(self, job_id: str, steps: int, max_steps: int, deadline_s: float, *, quiesce: bool,
              until_s: float | None = None) -> int:
        """Rounds until the job settled and every worker stays quiet, or a bound is reached
        (``until_s``: a pause's end, for the rounds run while a worker is paused)."""
        clock = self.world.clock
        quiet, budget = 0, steps + max_steps
        end = deadline_s if until_s is None else min(deadline_s, until_s)
        while steps < budget and clock.now() < end:
            raise_if_pending()  # a SIGINT whose KeyboardInterrupt Python swallowed somewhere
            fired = self.world.nemesis.firings
            steps, progressed, report = self.round(steps, job_id)
            settled = report is not None and report.get("outcome") in SETTLED
            quiet = 0 if progressed else quiet + 1
            if until_s is None and settled and quiet >= (3 if quiesce else 1) and not self.world.waiting() \
                    and not self.frozen and self.world.nemesis.firings == fired:  # a worker paused (a process's
                break  # pause runs beside the rounds), or a person just acted: not yet
            if not progressed:
                nxt = clock.next_deadline()
                target = nxt if nxt is not None and nxt > clock.now() else clock.now() + _IDLE_POLL_S
                clock.jump(max(clock.now(), min(target, end)))
        return steps

    # -- a worker restarted beside the others (``restart_worker``) -------------------------------
    def restart_apart(self, driver: Driver, because: str, on_back: Callable[[], None] | None = None) -> None:
        """Restart ``driver`` on a thread of its own, the world locked but for its waits, while the
        others work on (its process's start takes real time); the rounds skip it and people do not
        reach it (``frozen``) until it is up, then ``on_back()`` is called. A failure to start ends
        the run at the next round."""
        self.frozen.add(driver.worker_id)
        marks = hasattr(driver, "frozen")
        if marks:
            setattr(driver, "frozen", True)  # a call made to it meanwhile (its own step's) gets no answer

        def run() -> None:
            try:
                with self.world.lock:
                    driver.restart(because)
                    if on_back is not None:
                        on_back()
            except BaseException as err:  # CandidateFailed or the harness's own: the round raises it
                self.failure = err
            finally:
                if marks:
                    setattr(driver, "frozen", False)
                self.frozen.discard(driver.worker_id)
                self.world.lock.notify()

        thread = threading.Thread(target=run, name=f"dh-restart-{driver.worker_id}", daemon=True)
        self._restarting.append(thread)
        thread.start()

    def restarting(self) -> bool:
        """Whether a worker's process starts beside the others now (``restart_apart``)."""
        return any(thread.is_alive() for thread in self._restarting)

    def wait_restarts(self, timeout_s: float = 120.0) -> None:
        """Let the restarts begun beside the others end (before the run's processes are closed)."""
        for thread in self._restarting:
            thread.join(timeout_s)
        self._restarting.clear()

    # -- pauses (the gate's hold hook) -----------------------------------------------------------
    def hold_hook(self, job_id: str, max_steps: int, deadline_s: float) -> Callable[[str, float, bool, int], dict[str, Any]]:
        def hold(process: str, for_s: float, kill: bool, op: int) -> dict[str, Any]:
            return self.hold(process, for_s, kill, op, job_id, max_steps, deadline_s)
        return hold

    def _hold_process(self, me: Any, process: str, for_s: float, kill: bool, op: int, until: float) -> dict[str, Any]:
        """SIGSTOP (or SIGKILL) for the pause, from the server thread that holds the request; the
        run's loop steps the others meanwhile, and their processes work as they would."""
        world, clock = self.world, self.world.clock
        me.frozen = True  # nobody calls it, nobody restarts it, until the pause ends
        try:
            if kill:
                me.kill(f"killed while paused at op {op}", spare_op=op)
            else:
                me.freeze()
            clock.sleep(max(0.0, until - clock.now()))  # the world released: the others reach it meanwhile
        finally:
            me.thaw()
            self.frozen.discard(process)
        world.history.append(clock.now(), "note", "nemesis", {"resume": process, "op": op})
        return {"paused_for_s": round(for_s, 6), "killed": kill}

    def hold(self, process: str, for_s: float, kill: bool, op: int, job_id: str, max_steps: int,
             deadline_s: float) -> dict[str, Any]:
        """``process`` stops (and, with ``kill``, dies) for ``for_s`` while the others run."""
        world, clock = self.world, self.world.clock
        me = self.of(process)
        if for_s < 0:
            lease = me.lease_ttl_s if me is not None else None
            for_s = 2 * lease + 1.0 if lease else DEFAULT_PAUSE_S
        until = clock.now() + for_s
        world.history.append(clock.now(), "note", "nemesis", {
            "pause": process, "for_s": round(for_s, 6), "kill": kill, "op": op})
        self.frozen.add(process)
        if me is not None and hasattr(me, "freeze"):  # a process: the others work on by themselves meanwhile
            return self._hold_process(me, process, for_s, kill, op, until)
        try:
            if kill and me is not None:
                me.kill(f"killed while paused at op {op}", spare_op=op)
            others = [d for d in self.drivers if d is not me]
            if others:
                saved, self.drivers = self.drivers, others
                try:
                    self.drive(job_id, 0, max_steps, deadline_s, quiesce=False, until_s=until)
                except CandidateFailed as err:  # raised by the paused worker's step: not its own failure
                    self.failure = err
                finally:
                    self.drivers = saved
            clock.jump(max(clock.now(), until))
        finally:
            self.frozen.discard(process)
        world.history.append(clock.now(), "note", "nemesis", {"resume": process, "op": op})
        return {"paused_for_s": round(for_s, 6), "killed": kill}
