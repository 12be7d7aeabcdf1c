"""The process driver's cost: a scenario run in-process, and the same run with the candidate as a
process, on the harness's clock (idle time skipped) and on compressed real time.

Usage: python benchmarks/bench_process.py [--scenario baseline] [--repeat N] [--catalogue]
Prints, per candidate (the reference in-process; the reference as a process; the JavaScript
example as a process) and, for a process, per clock (``harness``: it says it takes its time from
the harness, which skips what it would sleep through; ``real``: ``DH_HARNESS_CLOCK=0``), the median
wall-clock seconds of a run, its scenario seconds and the seconds skipped, its requests, and the
ratio to the in-process run. The process runs include starting the candidate (a Python candidate
spends most of a second importing its SDK). ``--catalogue`` also runs the whole catalogue once per
process candidate and clock, one scenario after another, and prints its wall-clock seconds and
verdicts. Wall-clock time is measured here, never in the harness.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from durable_harness.harness import load_scenario, load_scenarios, run_scenario
from durable_harness.harness.scenario import catalogue_dir

REPO = Path(__file__).parents[1]
CLOCK_ENV = "DH_HARNESS_CLOCK"


@contextmanager
def clock(mode: str) -> Iterator[None]:
    """Runs on the harness's clock (``harness``) or on compressed real time (``real``)."""
    before = os.environ.get(CLOCK_ENV)
    os.environ[CLOCK_ENV] = "1" if mode == "harness" else "0"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(CLOCK_ENV, None)
        else:
            os.environ[CLOCK_ENV] = before


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", default="baseline")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--catalogue", action="store_true", help="also the whole catalogue, once per process candidate and clock")
    args = parser.parse_args()
    scenario = load_scenario(REPO / "durable_harness" / "scenarios" / f"{args.scenario}.yaml")
    processes = [("reference as a process",
                  f"cmd:{shlex.quote(sys.executable)} -m durable_harness.candidates.reference.serve --clock harness")]
    if shutil.which("node"):
        processes.append(("JavaScript example", f"cmd:node {REPO / 'examples' / 'node-control-plane' / 'server.js'}"))
    rows = [("in-process reference", "reference", "-")] + [(label, spec, mode) for label, spec in processes
                                                            for mode in ("harness", "real")]
    run_scenario(scenario, "reference")  # warm imports
    base = None
    print(f"{args.scenario}: median of {args.repeat} runs (time scale {os.environ.get('DURABLE_HARNESS_TIME_SCALE', '10')})")
    print(f"{'candidate':26} {'clock':8} {'verdict':8} {'seconds':>8} {'scenario s':>10} {'skipped s':>9} {'requests':>9} {'ratio':>7}")
    for label, spec, mode in rows:
        times, doc = [], None
        with clock(mode):
            for _ in range(args.repeat):
                start = time.perf_counter()
                doc = run_scenario(scenario, spec)
                times.append(time.perf_counter() - start)
        assert doc is not None
        median = statistics.median(times)
        base = base or median
        timings = doc["timings"]
        print(f"{label:26} {mode:8} {doc['verdict']:8} {median:8.2f} {timings['virtual_s']:10.1f} "
              f"{timings.get('skipped_s', 0.0):9.1f} {timings['requests']:9d} {median / base:6.1f}x")
    if args.catalogue:
        scenarios = load_scenarios([catalogue_dir()])
        print(f"\nthe catalogue: {len(scenarios)} scenarios, one after another")
        print(f"{'candidate':26} {'clock':8} {'seconds':>8} {'passed':>7} {'skipped s':>9}")
        for label, spec in processes:
            for mode in ("harness", "real"):
                with clock(mode):
                    start = time.perf_counter()
                    docs = [run_scenario(s, spec) for s in scenarios]
                    took = time.perf_counter() - start
                passed = sum(1 for d in docs if d["verdict"] == "pass")
                skipped = sum(d["timings"].get("skipped_s", 0.0) for d in docs)
                print(f"{label:26} {mode:8} {took:8.1f} {passed:4d}/{len(docs):<3d} {skipped:9.1f}", flush=True)


if __name__ == "__main__":
    main()
