"""The process driver's cost: a scenario run in-process, and the same run with the candidate as a process.

Usage: python benchmarks/bench_process.py [--scenario baseline] [--repeat N]
Prints, per candidate (the reference in-process; the reference as a process; the JavaScript
example as a process), the median wall-clock seconds of a run, its scenario seconds, its requests,
and the ratio to the in-process run. The process runs include starting the candidate (a Python
candidate spends most of a second importing its SDK); their scenario time is compressed by
``DURABLE_HARNESS_TIME_SCALE`` (10 unless set). Wall-clock time is measured here, never in the harness.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import statistics
import sys
import time
from pathlib import Path

from durable_harness.harness import load_scenario, run_scenario

REPO = Path(__file__).parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", default="baseline")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    scenario = load_scenario(REPO / "durable_harness" / "scenarios" / f"{args.scenario}.yaml")
    candidates = [("in-process reference", "reference"),
                  ("reference as a process", f"cmd:{shlex.quote(sys.executable)} -m durable_harness.candidates.reference.serve")]
    if shutil.which("node"):
        candidates.append(("JavaScript example", f"cmd:node {REPO / 'examples' / 'node-control-plane' / 'server.js'}"))
    run_scenario(scenario, "reference")  # warm imports
    base = None
    print(f"{args.scenario}: median of {args.repeat} runs")
    print(f"{'candidate':26} {'verdict':8} {'seconds':>8} {'scenario s':>10} {'requests':>9} {'ratio':>7}")
    for label, spec in candidates:
        times, doc = [], None
        for _ in range(args.repeat):
            start = time.perf_counter()
            doc = run_scenario(scenario, spec)
            times.append(time.perf_counter() - start)
        assert doc is not None
        median = statistics.median(times)
        base = base or median
        print(f"{label:26} {doc['verdict']:8} {median:8.2f} {doc['timings']['virtual_s']:10.1f} "
              f"{doc['timings']['requests']:9d} {median / base:6.1f}x")


if __name__ == "__main__":
    main()
