"""The crash-point sweep in one pass: every point is forked from the clean run at its I/O point.

Runs are deterministic, so the run of crash point ``k:side`` is the clean run up to request k and
then a crash there. Rather than run that prefix again for each point, the clean run forks itself
at each request before the heal, once per side. The fork becomes that point's run from that instant:
its scenario is the point's (``_sweep.point_scenario``), and the crash fault is armed as if it had
been armed from the start (it has seen k - 1 requests, so it fires on this one). The fork runs the
point to its end, writes its run.json and history as a run from scratch would (the same bytes: a
test compares them), hands its document to the parent, and exits. The parent meanwhile goes on
with the clean run, with up to ``jobs`` forks running beside it.

At a fork, the candidate's instance is blocked on its pipe, waiting for the answer to request k, so
its database and files are as a crash there would leave them. The parent copies the run's folder
for the fork before it answers the instance. The fork never signals the parent's instance (to the
fork it is the one that crashed), talks to the parent's zygote on a pipe of its own (a fork killed
mid-exchange breaks only that pipe), and starts its new instance on its copy of the folder.

When it applies (``applies``): a Python candidate in processes of its own, one worker, no network
of the candidate's own, and a base without people's actions. Elsewhere, and with ``DH_SWEEP_FORK=0``,
the points run from scratch (``_sweep.run_point``):

* ``DH_IN_PROCESS=1``: the instance lives in the harness's memory with the parent's open files;
* several workers: they share a PostgreSQL database that a copy of a folder does not copy;
* ``DH_CANDIDATE_NETWORK=host``: the candidate may keep state in a server of its own, which forks
  running side by side would share;
* people's actions: a point numbers them after its crash fault, so an action that fired before the
  fork would be named otherwise in the fork's history than in a run from scratch.

It deliberately does not judge or fold: ``_sweep_scenario`` does, from the documents it returns.
"""

from __future__ import annotations

import gc
import json
import os
import selectors
import shutil
import signal
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from durable_harness.harness._errors import HarnessError
from durable_harness.harness._history import History
from durable_harness.harness._libc import libc
from durable_harness.harness._parallel import SWEEP_JOBS, default_jobs
from durable_harness.harness._run import RunInterrupted, harness_error_doc, run_once, save_run
from durable_harness.harness._rundoc import write_run
from durable_harness.harness._scratch import make_scratch
from durable_harness.harness._sweep import (
    POINTS, SweepError, SweepPoint, clean_run_failed, clean_scenario, point_reproduce, point_scenario, points_of,
)
from durable_harness.harness.drivers._forked_driver import ForkedDriver, network_from_environment
from durable_harness.harness.isolation._probe import probe_candidate
from durable_harness.harness.isolation._zygote import _REAPED, instances_cpu_s, share_with_this_fork, zygote
from durable_harness.harness.drivers import driver_kind
from durable_harness.harness.faults import FaultContext, get_fault_kind
from durable_harness.harness.scenario import Scenario

__all__ = ["SWEEP_FORK", "ForkedSweep", "applies", "forked_sweep", "sweep_jobs"]

_RESULT = "result.json"
_WORK = "work"
_FAILED = 70  # a fork's exit status when it could not hand its document over


SWEEP_FORK = "DH_SWEEP_FORK"  # "0": every point from scratch, even where forking applies


def applies(base: Scenario, candidate: str) -> bool:
    """Whether the points of ``base`` can be forked from its clean run (see the module's doc)."""
    return (hasattr(os, "fork") and os.environ.get(SWEEP_FORK, "") != "0" and driver_kind(candidate).forks_sweep
            and base.workers == 1 and not base.actions
            and network_from_environment(os.environ) == "none")


def sweep_jobs() -> int:
    """How many forked points may run at once: ``DH_SWEEP_JOBS``, or every core this process may use,
    even beside other harness processes (``run -j N``'s workers, pytest-xdist's): a sweep is a
    catalogue's longest task, and the scenarios of the others end long before it, so it takes the
    cores as they free up rather than end alone on a share of them (measured on 2 cores, the
    catalogue: ``run -j 2`` 12.0 -> 11.3 s, the plugin under ``-n 2`` 13.4 -> 12.2 s)."""
    raw = os.environ.get(SWEEP_JOBS, "")
    if not raw:
        return default_jobs()
    try:
        return max(1, int(raw))
    except ValueError:
        raise HarnessError(f"{SWEEP_JOBS}={raw!r}: give a number of processes (1 or more)") from None


def forked_sweep(base: Scenario, candidate: str, seed: int, out_dir: Path | None, points_dir: Path | None,
                 unfinished: Callable[[dict[str, Any], int], dict[str, Any]], *,
                 wanted: Callable[[SweepPoint], bool] | None = None,
                 ) -> tuple[dict[str, Any], list[tuple[SweepPoint, dict[str, Any]]]]:
    """The clean run of ``base`` and each point's document, in order (each written to
    ``points_dir / <point id>``): every point, or those ``wanted`` (the others are listed with no
    document: ``{}``). Until the points are in, ``out_dir`` holds ``unfinished(clean, points)``, the
    document a signal raises (``RunInterrupted``) while they run."""
    forks = ForkedSweep(base, candidate, seed, points_dir, sweep_jobs(), wanted)
    try:
        try:
            clean, history = run_once(clean_scenario(base), candidate, seed, out_dir, forks=forks)
        finally:
            if os.getpid() != forks.parent:  # a fork ends in run_once; one that got here must not go on as the parent
                os._exit(_FAILED)
        cut_short = unfinished(clean, len(forks.points))
        if out_dir is not None:  # a sweep cut short is never the clean run's green
            write_run(out_dir, cut_short)
        try:
            runs = forks.collect()
        except KeyboardInterrupt:
            raise RunInterrupted(cut_short) from None
    finally:
        forks.stop()
    clean_run_failed(clean, history)
    expected = points_of(history)
    if clean["error"] is None and [p.label for p, _ in runs] != [p.label for p in expected]:
        raise SweepError(f"the sweep forked {len(runs)} crash points from its clean run, whose history has "
                         f"{len(expected)}: the two must be the same points", history)
    return clean, runs


@dataclass
class _Running:
    point: SweepPoint
    folder: Path  # the fork's copy of the run's folder, and its result
    done_fd: int  # closes when the fork ends


class ForkedSweep:
    """Forks the crash points of one clean run (see the module's doc)."""

    def __init__(self, base: Scenario, candidate: str, seed: int, points_dir: Path | None, jobs: int,
                 wanted: Callable[[SweepPoint], bool] | None = None) -> None:
        self.base, self.candidate, self.seed, self.points_dir = base, candidate, seed, points_dir
        self.jobs = max(1, jobs)
        self.wanted = wanted
        self.points: list[SweepPoint] = []
        self._world: Any = None
        self._k = 0
        self._running: dict[int, _Running] = {}
        self._docs: dict[str, dict[str, Any]] = {}
        self._scratch = make_scratch("durable-harness-sweep-")
        self.parent = os.getpid()

    def attach(self, world: Any) -> None:
        """Fork at every request of ``world``'s run before the heal (the gate's ``at_request``)."""
        self._world = world
        world.gate.at_request = self._at_request
        zygote()  # started before the first fork, so that every fork shares it
        probe_candidate(self.candidate)  # read once here, not once in every fork (a run's document names it)

    # -- in the parent ---------------------------------------------------------------------------
    def _at_request(self, ctx: FaultContext) -> None:
        self._k += 1
        request = f"{ctx.request.method} {ctx.service}{ctx.route}"
        for side in POINTS:
            point = SweepPoint(self._k, side, request)
            self.points.append(point)
            if (self.wanted is None or self.wanted(point)) and self._fork(point):
                return  # this process is that point's run now

    def _fork(self, point: SweepPoint) -> bool:
        """Fork ``point``; True in the fork."""
        if not isinstance(self._world.driver, ForkedDriver):
            raise HarnessError("a sweep forks its points only from a candidate in processes of its own")
        while len(self._running) >= self.jobs:
            self._reap(self._wait_any())
        folder = self._scratch / f"{point.k}-{point.point}"
        folder.mkdir()
        shutil.copytree(self._world.workdir, folder / _WORK)  # the instance waits for its answer: as a crash leaves it
        pipe = zygote().connection()  # the fork's own pipe to the zygote
        read_fd, write_fd = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        gc.freeze()  # the fork's collections leave the parent's objects alone (their pages stay shared)
        libc()  # loaded here once: every fork asks the kernel to die with us (``_die_with``)
        try:
            pid = os.fork()
        finally:
            if pid != 0:
                gc.unfreeze()
        if pid == 0:
            os.close(read_fd)
            self._become(point, folder, pipe)  # write_fd stays open until it exits: the parent sees EOF then
            return True
        pipe.close()
        os.close(write_fd)
        self._running[pid] = _Running(point, folder, read_fd)
        return False

    def _wait_any(self) -> int:
        """The pid of a fork that has ended (its pipe closed), waiting for one if none has."""
        with selectors.DefaultSelector() as selector:
            for pid, running in self._running.items():
                selector.register(running.done_fd, selectors.EVENT_READ, pid)
            while True:
                for key, _ in selector.select():
                    if not os.read(key.fd, 1):  # EOF: the fork has exited
                        return int(key.data)

    def _reap(self, pid: int) -> None:
        running = self._running.pop(pid)
        os.close(running.done_fd)
        _, status = os.waitpid(pid, 0)
        label = running.point.label
        result = running.folder / _RESULT
        try:
            data = json.loads(result.read_text("utf-8")) if result.exists() else None
        except (OSError, ValueError):
            data = None
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and isinstance(data, dict):
            self._docs[label] = data["doc"]
            _REAPED[0] += float(data.get("instances_cpu_s") or 0.0)
        else:
            how = (f"was killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
                   else f"exited with status {os.WEXITSTATUS(status)}")
            scenario = point_scenario(self.base, running.point)
            self._docs[label] = harness_error_doc(
                scenario, self.candidate, self.seed, self._folder_of(scenario),
                f"the process running crash point {label} (forked from the clean run) {how} without its document")
        shutil.rmtree(running.folder, ignore_errors=True)

    def collect(self) -> list[tuple[SweepPoint, dict[str, Any]]]:
        """Wait for every fork; each point and its document (``{}``: not wanted), in the order of the points."""
        while self._running:
            self._reap(self._wait_any())
        return [(p, self._docs.get(p.label, {})) for p in self.points]

    def stop(self) -> None:
        """Kill the forks still running (the parent stops: interrupted, or its own error) and clean up."""
        if os.getpid() != self.parent:
            return
        for pid, running in list(self._running.items()):
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            os.close(running.done_fd)
        self._running.clear()
        shutil.rmtree(self._scratch, ignore_errors=True)

    def _folder_of(self, scenario: Scenario) -> Path | None:
        return self.points_dir / scenario.id if self.points_dir is not None else None

    # -- in the fork -----------------------------------------------------------------------------
    def _become(self, point: SweepPoint, folder: Path, pipe: socket.socket) -> None:
        """This process is ``point``'s run from now on: the crash is armed, the world's folder is
        the copy, the parent's instance and forks are the parent's."""
        try:
            _die_with(self.parent)
            share_with_this_fork(pipe)
            for running in self._running.values():
                os.close(running.done_fd)
            self._running = {}
            world = self._world
            world.gate.at_request = None
            scenario = point_scenario(self.base, point)
            spec = scenario.faults[0]
            crash = get_fault_kind(spec.kind)(0, spec.at, spec.params)
            crash.state.seen = crash.state.channel_seen = point.k - 1  # as if armed from the start
            world.scenario = scenario
            world.nemesis.faults = [crash]
            world.workdir = folder / _WORK
            world.driver.forked_to(world.workdir)
            world.fork = _PointEnd(self, point, folder)
        except BaseException:
            os._exit(_FAILED)


def _die_with(parent: int) -> None:
    """A fork must not outlive the harness (a worker stopped with SIGTERM has no time to stop its
    forks): on Linux the kernel kills it when its parent dies."""
    if sys.platform.startswith("linux"):
        try:
            libc().prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # no prctl here: the fork ends when its run does
            return
    if os.getppid() != parent:  # the parent died before the kernel was told
        os._exit(_FAILED)


class _PointEnd:
    """How a forked point's run ends (``run_once`` calls ``finish``): its files, its document for
    the parent, and the exit of its process."""

    def __init__(self, sweep: ForkedSweep, point: SweepPoint, folder: Path) -> None:
        self.sweep, self.point, self.folder = sweep, point, folder

    def finish(self, doc: dict[str, Any], history: History, world: Any) -> None:
        code = _FAILED
        try:
            sweep = self.sweep
            doc["reproduce"] = point_reproduce(sweep.base, self.point, sweep.candidate, sweep.seed)
            out = sweep._folder_of(world.scenario)
            if out is not None:
                save_run(out, world.workdir, doc, history, world.secrets)
            (self.folder / _RESULT).write_text(json.dumps({"doc": doc, "instances_cpu_s": instances_cpu_s()}),
                                               encoding="utf-8")
            code = 0
        except BaseException:
            code = _FAILED
        finally:
            os._exit(code)
