"""Scenarios in parallel worker processes (``durable-harness run -j N``).

Each scenario is one task (sweeps are started first: they take longest): a worker process loads
its file and runs it exactly as a sequential run would (``run_scenario``, its own seed, its own
folder in the report), so its run.json and history are byte for byte the same; the documents come
back in the catalogue's order, whatever order they finished in, and the report made from them is
the sequential run's. Progress is printed as scenarios finish. The workers are started by a fork
server (no state of this process but its environment: ``--keep-candidate-db`` and ``--toxiproxy``
have set theirs before), ``N`` at most, never more than there are scenarios. They share this
process's zygote (``isolation._zygote``: one start-up of the SDK, not one per worker).

A signal stops the run: no new scenario starts, the workers are stopped, and what finished is
kept (the run is partial, as a sequential run cut short is). A harness killed outright (SIGKILL)
takes its workers with it: each watches the harness process and dies with it, and with them the
fork server and every candidate they had started. A worker that dies under a scenario is
a harness error of that scenario (exit 3), not a lost run.

A process candidate's runs go at once by what they use, not by cores (``_admission``): each worker
says the CPU and wall seconds its run took, and the runs in flight follow the measured busy share.

What it deliberately does not do: split one scenario (a sweep is one task: its points are forked
from its clean run in the worker, on every core: ``_sweep_fork.sweep_jobs``).
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from durable_harness.harness._admission import Admission, usage
from durable_harness.harness import _signals

__all__ = ["SWEEP_JOBS", "default_jobs", "run_parallel"]


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


_USE = "_use"  # what a worker's run used (CPU and wall seconds): read and dropped by ``run_parallel``
SWEEP_JOBS = "DH_SWEEP_JOBS"  # crash points a sweep forks at once beside its clean run (``_sweep_fork``)


def run_parallel(scenarios: Sequence[Any], candidate: str, seed: int | None, report: Path, jobs: int, *,
                 check_determinism: bool, done: Callable[[dict[str, Any]], None],
                 admission: Admission | None = None,
                 note: Callable[[str], None] | None = None) -> tuple[list[dict[str, Any]], bool]:
    """Run every scenario in up to ``jobs`` worker processes; (their documents in order, whether a
    signal stopped the run). ``done`` is called with each document as it comes back. With
    ``admission`` (process candidates: ``_admission``), the runs in flight are as many as it says
    from the runs finished so far, up to its cap; ``note`` is told when that number changes."""
    with _signals.handling(_noted):
        return _run_pool(scenarios, candidate, seed, report, jobs, check_determinism=check_determinism, done=done,
                         admission=admission, note=note)


def _run_pool(scenarios: Sequence[Any], candidate: str, seed: int | None, report: Path, jobs: int, *,
              check_determinism: bool, done: Callable[[dict[str, Any]], None], admission: Admission | None,
              note: Callable[[str], None] | None) -> tuple[list[dict[str, Any]], bool]:
    docs: dict[int, dict[str, Any]] = {}
    _share_the_zygote(candidate)
    context = multiprocessing.get_context("forkserver")
    workers = max(1, min(admission.cap if admission is not None else jobs, len(scenarios)))
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_init,
                                                  initargs=(os.getpid(),))
    stopped = False
    waiting = sorted(range(len(scenarios)), key=lambda i: scenarios[i].sweep is None)  # the longest (sweeps) first
    running: dict[concurrent.futures.Future[dict[str, Any]], int] = {}
    said = ""

    def limit() -> int:
        return admission.limit() if admission is not None else workers

    try:
        while waiting or running:
            while waiting and len(running) < limit():
                i = waiting.pop(0)
                running[pool.submit(_run_one, str(scenarios[i].source), scenarios[i].id, candidate, seed,
                                    str(report / scenarios[i].id), check_determinism)] = i
            if admission is not None and note is not None and admission.describe() != said:
                said = admission.describe()
                note(said)
            finished, _ = concurrent.futures.wait(running, timeout=_POLL_S, return_when=concurrent.futures.FIRST_COMPLETED)
            _signals.raise_if_pending()  # a SIGINT or SIGTERM, noted by _noted
            for future in finished:
                i = running.pop(future)
                try:
                    doc = future.result()
                except concurrent.futures.process.BrokenProcessPool as err:
                    doc = _lost(scenarios[i], candidate, seed, report, f"the worker process running it died ({err})")
                except KeyboardInterrupt:
                    raise
                except BaseException as err:  # the harness's own error, raised in the worker
                    doc = _lost(scenarios[i], candidate, seed, report, f"{type(err).__name__}: {err}")
                use = doc.pop(_USE, None)
                if admission is not None and isinstance(use, dict):
                    admission.finished(float(use["cpu_s"]), float(use["wall_s"]))
                docs[i] = doc
                done(doc)
    except KeyboardInterrupt:
        stopped = True
        for process in list(getattr(pool, "_processes", {}).values()):  # stop the scenarios in flight
            if process.is_alive():
                try:
                    os.kill(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return [docs[i] for i in sorted(docs)], stopped


_POLL_S = 0.25  # how soon the loop of run_parallel sees a signal noted while it waits


def _noted(signum: int, _frame: Any) -> None:
    """While the pool runs, a SIGINT or SIGTERM is noted (``_signals``) and the loop raises it between
    two waits, instead of a ``KeyboardInterrupt`` raised wherever the signal lands. Landing inside
    the executor's own locking (a future's lock taken, released by code the exception skipped), it
    left a lock held, and the pool's shutdown then waited for ever on its manager thread (seen in
    a test that interrupts the command line: the harness did not stop within two minutes)."""
    _signals.note(signal.Signals(signum).name)


def _share_the_zygote(candidate: str) -> None:
    """The workers fork their candidate's instances from this process's zygote (``DH_ZYGOTE``),
    started once here rather than once in each worker: they inherit the variable."""
    from durable_harness.harness.isolation._zygote import share_zygote
    from durable_harness.harness.drivers import driver_kind

    if driver_kind(candidate).zygote:
        share_zygote()


def _worker_init(harness: int) -> None:
    """A worker leaves signals to the parent: a Ctrl-C reaches the whole group, and the parent
    decides (it stops the workers it needs to stop with SIGTERM, which ends a worker at once). It
    dies with the harness process that asked for it, however that one ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with(harness)


def _die_with(harness: int) -> None:
    """SIGKILL this worker as soon as ``harness`` is gone. Its parent is the fork server, not the
    harness, so a parent-death signal cannot do it; and the fork server lives as long as any of its
    children holds its "alive" pipe, which every worker does: killed with SIGKILL (a CI timeout),
    the harness would leave the fork server and its workers running each other forever. The
    worker's own watchdog (``_supervisor``) then kills the candidates it had started."""
    import select
    import threading

    def gone() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    try:
        handle = os.pidfd_open(harness)
    except ProcessLookupError:
        gone()
    except OSError:  # no pidfd (an old kernel): look every half second
        def poll() -> None:
            while True:
                try:
                    os.kill(harness, 0)
                except ProcessLookupError:
                    gone()
                select.select([], [], [], 0.5)
        threading.Thread(target=poll, name="dh-die-with-harness", daemon=True).start()
        return

    def wait() -> None:
        select.select([handle], [], [])  # readable once the process has exited
        gone()

    threading.Thread(target=wait, name="dh-die-with-harness", daemon=True).start()


def _run_one(source: str, scenario_id: str, candidate: str, seed: int | None, out: str,
             check_determinism: bool) -> dict[str, Any]:
    from durable_harness.harness._determinism import check_determinism as check
    from durable_harness.harness._plugins import load_plugins
    from durable_harness.harness._scenario_run import run_scenario
    from durable_harness.harness.scenario import load_scenarios

    load_plugins()  # a fresh worker: the team's plugins, as the command line loaded them
    scenario = next(s for s in load_scenarios([Path(source)]) if s.id == scenario_id)
    cpu, wall = usage()  # what the run used, for ``_admission`` (never for the run itself)
    doc = run_scenario(scenario, candidate, seed, Path(out))
    doc = check(doc, scenario, candidate, Path(out)) if check_determinism else doc
    cpu_after, wall_after = usage()
    doc[_USE] = {"cpu_s": cpu_after - cpu, "wall_s": wall_after - wall}
    return doc


def _lost(scenario: Any, candidate: str, seed: int | None, report: Path, why: str) -> dict[str, Any]:
    """A scenario whose worker failed: a harness error of its own (exit 3), written like any run."""
    from durable_harness.harness._run import harness_error_doc

    return harness_error_doc(scenario, candidate, seed, report / scenario.id, f"running it in a worker process: {why}")
