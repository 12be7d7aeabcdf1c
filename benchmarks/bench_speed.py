"""The speed figures the harness is held to, each a median of several runs, with the machine's load.

Usage: python benchmarks/bench_speed.py [--out FILE] [--compare BASELINE.json] [--rows ROW,...]
                                        [--repeat N] [--sweep-repeat N] [--catalogue-repeat N] [-j N]

Rows (``--rows``; default every row but ``tests``, which costs minutes):

* ``baseline``   — CPU ms of one no-fault ``baseline`` run against the reference, in-process;
* ``requests``   — from instrumented baseline runs: the harness's CPU per request (the gate's transport
  and the streams it hands out: routing, the fakes, faults, the history; what the candidate's SDK does
  beyond that is its own floor), and the CPU the reference spends in its store and in ``report()``;
* ``isolation``  — what a candidate in processes of its own costs: the zygote's start-up, a baseline run
  with the candidate isolated and inside the harness's process (CPU of every process, wall), and
  the difference per request;
* ``sweep``      — the crash-point sweep of the article workload (``restart-at-every-io-point``): CPU and
  wall seconds, and its points;
* ``sweep-modes`` — why a forked sweep saves less than the prefix it skips: the article's sweep in three
  modes, alternating, CPU of every process (the forks', the instances' and the zygote's reaped ones
  included): isolated with every point forked from the clean run, isolated with every point from
  scratch (``DH_SWEEP_FORK=0``), and inside the harness's process (``DH_IN_PROCESS=1``, where points
  are always run from scratch); and the ratios that separate the two effects;
* ``stranger``   — the same for a control plane written from the contract alone, unlike the reference
  (``tests/candidates/strangers/polling:create``: it polls, and commits to its SQLite store with SQLite's
  defaults): a baseline run (CPU of every process, wall) and the article's sweep (wall); and for the
  reference in a module that imports SQLAlchemy's ORM (``tests/candidates/orm_user:make``), as a
  control plane built on it does: the same figures;
* ``catalogue``  — the whole catalogue against the reference and every mutant (``--candidate`` to
  choose), in ``-j`` processes: CPU seconds (every process's), wall seconds, and the virtual seconds
  simulated per wall (and per CPU) second;
* ``cli``        — start-up of ``durable-harness --help``, ``list`` and ``validate``: CPU ms of the process;
* ``plugin``     — the catalogue against the reference through the pytest plugin (``pytest --dh-candidate
  reference -n 2``) and through the command line (``run -j 1`` and ``run -j 2``): wall seconds of
  each, and how many times faster the plugin under ``-n 2`` is than each command line;
* ``instructions`` — machine instructions of one baseline run in-process (candidate inside the harness's
  process), counted by valgrind (``cachegrind``, no cache simulation): the difference between a process
  that makes three runs and one that makes one, halved; and the same of the harness's process alone
  with the candidate isolated (its share of a run; its start-up with its first run). Unlike time, the
  count does not move with the machine's load or with which core ran it: a change of a few per cent
  shows. Needs ``valgrind`` (the row says so and is left out without it); about two minutes;
* ``explore``    — exploration's throughput: plans per CPU second and per wall second of ``explore``
  against the reference for ``--explore-s`` seconds (default 20, seed 0), in-process (the forked
  driver) and as a process (``cmd:``, the reference's default clock: compressed real time);
* ``tests``      — the fast tests (``pytest -q -n 2``), the suite (``make test``) and its slow sweeps
  (``make test-slow``; CI runs both): wall and CPU seconds, once each.

CPU time (``getrusage``) is the figure to trust on a busy machine; wall time is printed beside it.
Each row carries the one-minute load average before and after it. ``--out`` writes the figures as
JSON; ``--compare`` reads an earlier file and prints, per figure, before, after and the ratio.
Wall-clock time is measured here, in the benchmark, never inside the harness. The measured checkout
is compiled to byte code first, so that two checkouts compared start alike.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from durable_harness import harness
from durable_harness.harness import load_scenarios, run_scenario

CODE = Path(harness.__file__).resolve().parents[2]  # the checkout being measured
FORMAT = "durable-harness/bench-speed@1"
ROWS = ("baseline", "requests", "isolation", "instructions", "sweep", "sweep-modes", "stranger", "catalogue", "cli",
        "plugin", "explore", "tests")


# -- measuring -------------------------------------------------------------------------------------
def _cpu() -> float:
    """CPU seconds of this process, of its children that ended, and of the candidate instances its
    zygote reaped (a Python candidate runs in processes of its own, children of the zygote)."""
    from durable_harness.harness.isolation._zygote import instances_cpu_s

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime + instances_cpu_s()


def _load() -> float:
    return round(os.getloadavg()[0], 2)


class Figure:
    """One figure: its samples, the load around them, its median."""

    def __init__(self, name: str, unit: str, what: str) -> None:
        self.name, self.unit, self.what = name, unit, what
        self.samples: list[float] = []
        self.load = [_load(), _load()]
        self.extra: dict[str, Any] = {}

    def add(self, value: float) -> None:
        self.samples.append(value)
        self.load[1] = _load()

    @property
    def value(self) -> float:
        return statistics.median(self.samples)

    def to_json(self) -> dict[str, Any]:
        return {"value": round(self.value, 4), "unit": self.unit, "what": self.what,
                "samples": [round(s, 4) for s in self.samples], "load": self.load, **self.extra}

    def line(self) -> str:
        spread = f"{min(self.samples):.4g}..{max(self.samples):.4g}" if len(self.samples) > 1 else "one run"
        return (f"{self.name:34} {self.value:10.4g} {self.unit:5} (n={len(self.samples)}, {spread})  "
                f"load {self.load[0]:.2f}->{self.load[1]:.2f}")


def _scenario(name: str) -> Any:
    return next(s for s in load_scenarios([CODE / "durable_harness" / "scenarios"]) if s.id == name)


# -- rows ------------------------------------------------------------------------------------------
def row_baseline(args: argparse.Namespace) -> list[Figure]:
    base = _scenario("baseline")
    run_scenario(base, "reference")  # warm: imports, caches
    cpu = Figure("baseline run CPU", "ms", "one no-fault baseline run against the reference, in-process")
    wall = Figure("baseline run wall", "ms", "the same runs' wall time")
    for _ in range(args.repeat):
        c0, w0 = _cpu(), time.perf_counter()
        doc = run_scenario(base, "reference")
        cpu.add(1000 * (_cpu() - c0))
        wall.add(1000 * (time.perf_counter() - w0))
    cpu.extra["requests"] = doc["timings"]["requests"]
    cpu.extra["history_entries"] = doc["history"]["entries"]
    return [cpu, wall]


class _Meter:
    """CPU seconds spent inside instrumented calls (outermost calls only: nested ones are not counted twice)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._depth = 0

    @contextmanager
    def measure(self) -> Iterator[None]:
        self._depth += 1
        start = time.process_time() if self._depth == 1 else 0.0
        try:
            yield
        finally:
            if self._depth == 1:
                self.seconds += time.process_time() - start
            self._depth -= 1

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*a: Any, **kw: Any) -> Any:
            with self.measure():
                return fn(*a, **kw)
        return timed


@contextmanager
def _instrumented(gate: _Meter, store: _Meter, report: _Meter) -> Iterator[None]:
    """The gate's transports (and their streams), the reference's store and its ``report()``, timed."""
    import httpx

    from durable_harness.candidates.reference import ReferencePlane
    from durable_harness.candidates.reference._store import Store
    from durable_harness.harness._gate import Gate

    class TimedStream(httpx.SyncByteStream):
        def __init__(self, inner: Any) -> None:
            self._inner = inner

        def __iter__(self) -> Iterator[bytes]:
            chunks = iter(self._inner)
            while True:
                with gate.measure():
                    chunk = next(chunks, None)
                if chunk is None:
                    return
                yield chunk

        def close(self) -> None:
            self._inner.close()

    class TimedTransport(httpx.BaseTransport):
        def __init__(self, inner: httpx.BaseTransport) -> None:
            self._inner = inner

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            with gate.measure():
                response = self._inner.handle_request(request)
            if not isinstance(response.stream, httpx.ByteStream):
                response.stream = TimedStream(response.stream)
            return response

    saved: list[tuple[Any, str, Any]] = [(Gate, "transport", Gate.transport), (ReferencePlane, "report", ReferencePlane.report)]
    saved += [(Store, name, fn) for name, fn in vars(Store).items() if callable(fn) and not name.startswith("_")]
    transport = Gate.transport
    setattr(Gate, "transport", lambda self, process: TimedTransport(transport(self, process)))
    setattr(ReferencePlane, "report", report.wrap(ReferencePlane.report))
    for owner, name, fn in saved[2:]:
        setattr(owner, name, store.wrap(fn))
    try:
        yield
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)


def row_requests(args: argparse.Namespace) -> list[Figure]:
    base = _scenario("baseline")
    per_request = Figure("harness CPU per request", "ms", "CPU inside the gate's transport and streams "
                         "(routing, fakes, faults, history) per request of a baseline run; above the SDK's floor")
    store = Figure("reference store CPU per run", "ms", "CPU inside the reference's Store per baseline run")
    report = Figure("reference report() CPU per run", "ms", "CPU inside ReferencePlane.report per baseline run")
    os.environ["DH_IN_PROCESS"] = "1"  # the reference's store and report() are timed where they run
    try:
        run_scenario(base, "reference")
        for _ in range(args.repeat):
            meters = _Meter(), _Meter(), _Meter()
            with _instrumented(*meters):
                doc = run_scenario(base, "reference")
            requests = int(doc["timings"]["requests"])
            per_request.add(1000 * meters[0].seconds / requests)
            store.add(1000 * meters[1].seconds)
            report.add(1000 * meters[2].seconds)
    finally:
        os.environ.pop("DH_IN_PROCESS", None)
    per_request.extra["requests"] = requests
    return [per_request, store, report]


def row_isolation(args: argparse.Namespace) -> list[Figure]:
    """What running the candidate in processes of its own costs: a baseline run with each instance
    forked from the zygote against the same run inside the harness's process (DH_IN_PROCESS=1)."""
    from durable_harness.harness.isolation._zygote import Zygote

    base = _scenario("baseline")
    start = Figure("zygote start-up wall", "ms", "starting the process instances are forked from (once per harness)")
    for _ in range(min(args.repeat, 3)):  # a zygote of its own each time: this process's may be up already
        w0 = time.perf_counter()
        fresh = Zygote.start()
        fresh.ready()
        start.add(1000 * (time.perf_counter() - w0))
        fresh.close()
    figures = [start]
    per_run: dict[str, Figure] = {}
    for mode, label in (("1", "in the harness's process"), ("0", "in processes of its own")):
        os.environ["DH_IN_PROCESS"] = mode
        cpu = per_run[mode] = Figure(f"baseline CPU, candidate {'inside' if mode == '1' else 'isolated'}", "ms",
                                     f"one baseline run, the candidate {label}: every process's CPU")
        wall = Figure(f"baseline wall, candidate {'inside' if mode == '1' else 'isolated'}", "ms", "the same runs' wall")
        run_scenario(base, "reference")
        for _ in range(args.repeat):
            c0, w0 = _cpu(), time.perf_counter()
            doc = run_scenario(base, "reference")
            cpu.add(1000 * (_cpu() - c0))
            wall.add(1000 * (time.perf_counter() - w0))
        cpu.extra["requests"] = doc["timings"]["requests"]
        figures += [cpu, wall]
    os.environ.pop("DH_IN_PROCESS", None)
    requests = int(per_run["0"].extra["requests"])
    extra = Figure("isolation CPU per request", "ms", "(isolated - inside) CPU of a baseline run, per request")
    extra.add((per_run["0"].value - per_run["1"].value) / requests)
    return [*figures, extra]


_RUNS = """
import os, sys
os.environ["DH_IN_PROCESS"] = sys.argv[3]
from pathlib import Path
from durable_harness.harness import load_scenarios, run_scenario
base = next(s for s in load_scenarios([Path(sys.argv[1]) / "durable_harness" / "scenarios"]) if s.id == "baseline")
for _ in range(int(sys.argv[2])):
    doc = run_scenario(base, "reference")
print(doc["verdict"], doc["timings"]["requests"])
"""


def _instructions(inside: str) -> tuple[dict[int, int], int]:
    """Instructions of a process that makes 1 baseline run and of one that makes 3 (the candidate
    inside the process: ``inside`` "1"; isolated: "0", the instances and the helper not counted)."""
    with tempfile.TemporaryDirectory() as tmp:
        counting = {n: subprocess.Popen(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                                         f"--cachegrind-out-file={tmp}/runs-{n}.out", sys.executable, "-c", _RUNS,
                                         str(CODE), str(n), inside],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=CODE,
                                        env={**os.environ, "PYTHONHASHSEED": "0"})  # the same count each time
                    for n in (1, 3)}
        counts, requests = {}, 0
        for n, process in counting.items():
            out, _ = process.communicate()
            summary = [line for line in Path(f"{tmp}/runs-{n}.out").read_text().splitlines()
                       if line.startswith("summary:")]
            if process.returncode != 0 or not summary or not out.startswith("pass "):
                raise SystemExit(f"instructions: the process of {n} runs under valgrind failed "
                                 f"(exit {process.returncode}, said {out.strip()!r})")
            counts[n] = int(summary[0].split()[1])
            requests = int(out.split()[1])
    return counts, requests


def row_instructions(args: argparse.Namespace) -> list[Figure]:
    """Instructions per baseline run, from processes under valgrind that make 3 runs and 1: with
    the candidate inside the harness's process (the whole run), and the harness's process alone
    with the candidate isolated (its share of a run, and its start-up with its first run)."""
    if shutil.which("valgrind") is None:
        print("instructions: left out (valgrind is not installed: apt-get install valgrind)", flush=True)
        return []
    per_run = Figure("baseline run instructions", "M", "machine instructions of one baseline run, in-process "
                     "(valgrind: a process of 3 runs minus one of 1, halved)")
    per_request = Figure("instructions per request", "k", "the same, per request of the run")
    harness = Figure("harness instructions per run", "M", "the harness's process alone in one baseline run, "
                     "the candidate isolated (its instances and the helper not counted)")
    first = Figure("harness start-up instructions", "M", "a harness process that makes one baseline run, the "
                   "candidate isolated: its start-up (imports, the helper's hand-shake) and that run")
    counts, requests = _instructions("1")
    instructions = (counts[3] - counts[1]) / 2
    per_run.add(instructions / 1e6)
    per_request.add(instructions / requests / 1e3)
    per_run.extra.update(requests=requests, runs_1=counts[1], runs_3=counts[3])
    alone, _ = _instructions("0")
    harness.add((alone[3] - alone[1]) / 2 / 1e6)
    first.add(alone[1] / 1e6)
    harness.extra.update(runs_1=alone[1], runs_3=alone[3])
    return [per_run, per_request, harness, first]


def row_sweep(args: argparse.Namespace) -> list[Figure]:
    sweep = _scenario("restart-at-every-io-point")
    cpu = Figure("sweep (article crash points) CPU", "s", "restart-at-every-io-point against the reference")
    wall = Figure("sweep (article crash points) wall", "s", "the same sweeps' wall time")
    for _ in range(args.sweep_repeat):
        c0, w0 = _cpu(), time.perf_counter()
        doc = run_scenario(sweep, "reference")
        cpu.add(_cpu() - c0)
        wall.add(time.perf_counter() - w0)
    cpu.extra["points"] = (doc.get("sweep") or {}).get("points")
    cpu.extra["verdict"] = doc["verdict"]
    return [cpu, wall]


_SWEEP_MODES = {  # name: (DH_IN_PROCESS, DH_SWEEP_FORK)
    "isolated, forked points": ("0", "1"), "isolated, from scratch": ("0", "0"),
    "inside, from scratch": ("1", "0"),
}


def row_sweep_modes(args: argparse.Namespace) -> list[Figure]:
    """The article's sweep, the candidate isolated or inside, its points forked or from scratch.
    (Inside, points are never forked: the instance shares the harness's memory and open files.)"""
    sweep = _scenario("restart-at-every-io-point")
    cpu = {name: Figure(f"sweep CPU, {name}", "s", f"restart-at-every-io-point against the reference, {name}")
           for name in _SWEEP_MODES}
    saved = {name: os.environ.get(name) for name in ("DH_IN_PROCESS", "DH_SWEEP_FORK")}
    try:
        for _ in range(args.sweep_repeat):
            for name, (inside, fork) in _SWEEP_MODES.items():
                os.environ.update({"DH_IN_PROCESS": inside, "DH_SWEEP_FORK": fork})
                c0 = _cpu()
                doc = run_scenario(sweep, "reference")
                cpu[name].add(_cpu() - c0)
                cpu[name].extra["points"] = (doc.get("sweep") or {}).get("points")
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    forked, scratch, inside = (cpu[n].value for n in _SWEEP_MODES)
    ratios = [("forked points / isolated from scratch", forked / scratch, "what forking from the clean run saves"),
              ("isolated / inside, from scratch", scratch / inside, "what isolation costs on the same points"),
              ("forked points / inside from scratch", forked / inside, "the two together")]
    figures = list(cpu.values())
    for name, value, what in ratios:
        figure = Figure(name, "x", what)
        figure.add(value)
        figures.append(figure)
    return figures


STRANGERS = {"stranger": "tests.candidates.strangers.polling:create", "ORM user": "tests.candidates.orm_user:make"}


def row_stranger(args: argparse.Namespace) -> list[Figure]:
    """Candidates we did not shape: what a run and a sweep cost them (their own code included)."""
    if str(CODE) not in sys.path:
        sys.path.insert(0, str(CODE))  # their modules live in the checkout's tests
    base, sweep = _scenario("baseline"), _scenario("restart-at-every-io-point")
    figures = []
    for name, spec in STRANGERS.items():
        module = CODE / spec.split(":")[0].replace(".", "/")
        if not (module.with_suffix(".py").exists() or module.is_dir()):
            continue  # a checkout from before that candidate
        run_scenario(base, spec)  # warm: its imports in this process
        cpu = Figure(f"{name} baseline CPU", "ms", f"one baseline run against {spec}: every process's CPU")
        wall = Figure(f"{name} baseline wall", "ms", "the same runs' wall time")
        for _ in range(args.repeat):
            c0, w0 = _cpu(), time.perf_counter()
            doc = run_scenario(base, spec)
            cpu.add(1000 * (_cpu() - c0))
            wall.add(1000 * (time.perf_counter() - w0))
        cpu.extra["verdict"] = doc["verdict"]
        swept = Figure(f"{name} sweep (article crash points) wall", "s", f"restart-at-every-io-point against {spec}")
        for _ in range(args.sweep_repeat):
            w0 = time.perf_counter()
            doc = run_scenario(sweep, spec)
            swept.add(time.perf_counter() - w0)
        swept.extra["verdict"] = doc["verdict"]
        figures += [cpu, wall, swept]
    return figures


def _catalogue_task(task: tuple[str, str]) -> tuple[float, float, str]:
    candidate, path = task
    scenario = load_scenarios([Path(path)])[0]
    c0 = _cpu()
    doc = run_scenario(scenario, candidate)
    return _cpu() - c0, float(doc["timings"]["virtual_s"]), doc["verdict"]


def row_catalogue(args: argparse.Namespace) -> list[Figure]:
    if args.candidate:
        candidates = list(args.candidate)
    else:
        from durable_harness.candidates.mutants import mutant_names

        candidates = ["reference", *(f"mutant:{name}" for name in mutant_names())]
    paths = sorted(str(s.source) for s in load_scenarios([CODE / "durable_harness" / "scenarios"]))
    tasks = sorted(((c, p) for c in candidates for p in paths), key=lambda t: "every-io-point" not in t[1])
    what = f"{len(paths)} scenarios x {len(candidates)} candidates (reference + {len(candidates) - 1} mutants)"
    cpu = Figure("catalogue x candidates CPU", "s", what + ", CPU of every process")
    wall = Figure(f"catalogue x candidates wall (-j {args.jobs})", "s", what + f", wall time in {args.jobs} processes")
    per_wall = Figure("virtual s per wall s (catalogue)", "x", "virtual seconds simulated per wall second, " + what)
    per_cpu = Figure("virtual s per CPU s (catalogue)", "x", "virtual seconds simulated per CPU second, " + what)
    from durable_harness.harness.isolation._zygote import share_zygote

    share_zygote()  # as ``run -j`` does: its workers fork their instances from one zygote
    for _ in range(args.catalogue_repeat):
        w0 = time.perf_counter()
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            results = pool.map(_catalogue_task, tasks, chunksize=1)
        seconds = time.perf_counter() - w0
        total_cpu = sum(r[0] for r in results)
        virtual = sum(r[1] for r in results)
        cpu.add(total_cpu)
        wall.add(seconds)
        per_wall.add(virtual / seconds)
        per_cpu.add(virtual / total_cpu)
    cpu.extra["runs"] = len(tasks)
    cpu.extra["virtual_s"] = round(virtual, 3)
    return [cpu, wall, per_wall, per_cpu]


def _cli() -> list[str]:
    script = Path(sys.executable).parent / "durable-harness"
    return [str(script)] if script.exists() else [sys.executable, "-m", "durable_harness.harness.cli"]


def row_cli(args: argparse.Namespace) -> list[Figure]:
    """Each command with the scenario cache warm (the catalogue read before, as from the second
    command on), and ``validate`` with none (``DURABLE_HARNESS_CACHE=off``: every file parsed and
    checked, as the first command on a machine does). Whether Python may write byte code
    (``PYTHONDONTWRITEBYTECODE``) is printed with the figures: an editable install without it
    compiles the harness at every start."""
    figures = []
    with tempfile.TemporaryDirectory(prefix="bench-cli-cache-") as folder:
        for command, cache in ((["--help"], folder), (["list"], folder), (["validate"], folder), (["validate"], "off")):
            name = " ".join(command) + (" (no scenario cache)" if cache == "off" else "")
            env = {**os.environ, "DURABLE_HARNESS_CACHE": cache}
            cpu = Figure(f"cli {name} CPU", "ms", f"durable-harness {name}: the process's CPU")
            wall = Figure(f"cli {name} wall", "ms", f"durable-harness {name}: wall time")
            subprocess.run(_cli() + command, cwd=CODE, env=env, capture_output=True, check=True)  # warm the caches
            for _ in range(args.repeat):
                c0, w0 = _cpu(), time.perf_counter()
                subprocess.run(_cli() + command, cwd=CODE, env=env, capture_output=True, check=True)
                cpu.add(1000 * (_cpu() - c0))
                wall.add(1000 * (time.perf_counter() - w0))
            cpu.extra["PYTHONDONTWRITEBYTECODE"] = os.environ.get("PYTHONDONTWRITEBYTECODE", "")
            figures += [cpu, wall]
    return figures


def row_plugin(args: argparse.Namespace) -> list[Figure]:
    """The same catalogue run three ways, each in a fresh process and a report folder of its own.
    Wall time only: ``run -j``'s workers are children of a fork server, whose CPU its parent is not
    told of."""
    scenarios = str(CODE / "durable_harness" / "scenarios")
    ways = {"pytest -n 2": [sys.executable, "-m", "pytest", "--dh-candidate", "reference", scenarios, "-n", "2", "-q",
                            "-p", "no:cacheprovider", "-p", "no:randomly"],
            "cli -j 1": [*_cli(), "run", "--candidate", "reference", "-j", "1"],
            "cli -j 2": [*_cli(), "run", "--candidate", "reference", "-j", "2"]}
    walls: dict[str, Figure] = {}
    for name, command in ways.items():
        wall = walls[name] = Figure(f"catalogue via {name} wall", "s",
                                    f"the catalogue against the reference via {name}: wall time")
        for _ in range(args.catalogue_repeat):
            with tempfile.TemporaryDirectory(prefix="bench-plugin-") as folder:
                extra = ["--dh-report", folder] if command[1:3] == ["-m", "pytest"] else ["--report", folder + "/r"]
                w0 = time.perf_counter()
                done = subprocess.run(command + extra, cwd=CODE, capture_output=True, text=True)
                wall.add(time.perf_counter() - w0)
            wall.extra["exit"] = done.returncode
    figures = list(walls.values())
    for name in ("cli -j 1", "cli -j 2"):
        faster = Figure(f"plugin -n 2 faster than {name}", "x", f"wall of {name} / wall of pytest -n 2")
        faster.add(walls[name].value / walls["pytest -n 2"].value)
        figures.append(faster)
    return figures


def row_explore(args: argparse.Namespace) -> list[Figure]:
    """Plans per CPU second and per wall second of a search against the reference, in-process and as a process."""
    from durable_harness.harness.explore import explore

    figures = []
    for label, spec in (("in-process", "reference"),
                        ("as a process", f"cmd:{sys.executable} -m durable_harness.candidates.reference.serve")):
        per_cpu = Figure(f"explore plans per CPU s, {label}", "plans/s",
                         f"explore {spec} for {args.explore_s:g} s (seed 0): plans run per CPU second of every process")
        per_wall = Figure(f"explore plans per wall s, {label}", "plans/s", "the same search: plans per wall second")
        c0, w0 = _cpu(), time.perf_counter()
        found = explore(spec, seed=0, budget_s=args.explore_s)
        cpu, wall = _cpu() - c0, time.perf_counter() - w0
        per_cpu.add(found.plans_run / cpu if cpu else 0.0)
        per_wall.add(found.plans_run / wall if wall else 0.0)
        per_cpu.extra["plans"] = found.plans_run
        figures += [per_cpu, per_wall]
    return figures


def row_tests(args: argparse.Namespace) -> list[Figure]:
    figures = []
    fast = [sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:randomly"]
    for name, command in (("pytest (fast tests, -n 2)", fast), ("make test", ["make", "-s", "test"]),
                          ("make test-slow", ["make", "-s", "test-slow"])):
        cpu = Figure(f"{name} CPU", "s", f"{name}: CPU of every process")
        wall = Figure(f"{name} wall", "s", f"{name}: wall time")
        c0, w0 = _cpu(), time.perf_counter()
        done = subprocess.run(command, cwd=CODE, capture_output=True, text=True)
        cpu.add(_cpu() - c0)
        wall.add(time.perf_counter() - w0)
        cpu.extra["result"] = (done.stdout.strip().splitlines() or ["?"])[-1]
        figures += [cpu, wall]
    return figures


# -- output ----------------------------------------------------------------------------------------
def _commit() -> str | None:
    if shutil.which("git") is None:
        return None
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=CODE, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 and (CODE / ".git").exists() else None


def _compare(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    lines = [f"{'figure':34} {'before':>10} {'after':>10} unit  after/before  (load before; after)"]
    for name, new in after["figures"].items():
        old = before["figures"].get(name)
        if old is None:
            lines.append(f"{name:34} {'-':>10} {new['value']:10.4g} {new['unit']:5}")
            continue
        ratio = new["value"] / old["value"] if old["value"] else float("nan")
        lines.append(f"{name:34} {old['value']:10.4g} {new['value']:10.4g} {new['unit']:5} {ratio:8.3f}      "
                     f"({old['load'][0]:.1f}-{old['load'][1]:.1f}; {new['load'][0]:.1f}-{new['load'][1]:.1f})")
    return lines


def _compile(code: Path) -> None:
    """The measured checkout's byte code, written now: where ``PYTHONDONTWRITEBYTECODE`` is set, a
    checkout that was never compiled (a second worktree, for the "before" of a comparison) would
    compile its sources in every process it starts, and its start-up figures would be worse for it."""
    import compileall

    for package in ("durable_harness", "benchmarks"):
        if (code / package).is_dir():
            compileall.compile_dir(str(code / package), quiet=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the figures as JSON")
    parser.add_argument("--compare", type=Path, help="an earlier --out file: print before, after and ratios")
    parser.add_argument("--rows", default=",".join(r for r in ROWS if r != "tests"),
                        help=f"comma-separated, of {', '.join(ROWS)}")
    parser.add_argument("--repeat", type=int, default=7, help="runs per cheap figure (baseline, requests, cli)")
    parser.add_argument("--sweep-repeat", type=int, default=3)
    parser.add_argument("--catalogue-repeat", type=int, default=1)
    parser.add_argument("--explore-s", type=float, default=20.0, help="seconds of search for the explore row")
    parser.add_argument("--candidate", action="append", default=[], help="for the catalogue (default: all)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="processes for the catalogue")
    parser.add_argument("--label", default=None, help="a name for this measurement (default: the commit)")
    args = parser.parse_args()
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    unknown = [r for r in rows if r not in ROWS]
    if unknown:
        parser.error(f"--rows: {', '.join(unknown)} not among {', '.join(ROWS)}")
    before = json.loads(args.compare.read_text("utf-8")) if args.compare else None
    commit = _commit()
    print(f"measuring {args.label or commit or CODE} on {os.cpu_count()} cores, load {os.getloadavg()}", flush=True)
    _compile(CODE)
    figures: list[Figure] = []
    builders = {"baseline": row_baseline, "requests": row_requests, "isolation": row_isolation,
                "instructions": row_instructions, "sweep": row_sweep, "sweep-modes": row_sweep_modes,
                "stranger": row_stranger,
                "catalogue": row_catalogue,
                "cli": row_cli, "plugin": row_plugin, "explore": row_explore, "tests": row_tests}
    for row in rows:
        for figure in builders[row](args):
            print(figure.line(), flush=True)
            figures.append(figure)
    doc = {"format": FORMAT, "label": args.label or commit, "commit": commit, "cpus": os.cpu_count(),
           "python": platform.python_version(), "figures": {f.name: f.to_json() for f in figures}}
    if args.out:
        args.out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        print(f"written: {args.out}")
    if before is not None:
        print("\n".join(["", f"compared with {before.get('label')}:", *_compare(before, doc)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
