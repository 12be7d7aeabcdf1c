"""Scenario runs per second, in-process; the crash-point sweep's time; the memory a run holds.

Usage: python benchmarks/bench_runs.py [--repeat N] [--candidate SPEC] [--no-sweep]
Prints one line per scenario (runs/s, ms/run, requests/run, history entries), the catalogue total,
then the sweep of the baseline (points, seconds, points/s).
Wall-clock time is measured here, in the benchmark, never inside the harness.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from pathlib import Path

from durable_harness.harness import load_scenarios, run_scenario

REPO = Path(__file__).parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--candidate", default="reference")
    parser.add_argument("--no-sweep", action="store_true")
    args = parser.parse_args()
    scenarios = load_scenarios([REPO / "durable_harness" / "scenarios"])
    run_scenario(scenarios[0], args.candidate)  # warm imports
    total_runs, total_s = 0, 0.0
    print(f"{'scenario':32} {'runs/s':>8} {'ms/run':>8} {'requests':>9} {'entries':>8}")
    for s in scenarios:
        start = time.perf_counter()
        for _ in range(args.repeat):
            doc = run_scenario(s, args.candidate)
        elapsed = time.perf_counter() - start
        total_runs += args.repeat
        total_s += elapsed
        print(f"{s.id:32} {args.repeat / elapsed:8.1f} {1000 * elapsed / args.repeat:8.1f} "
              f"{doc['timings']['requests']:9d} {doc['history']['entries']:8d}")
    print(f"{'catalogue':32} {total_runs / total_s:8.1f} {1000 * total_s / total_runs:8.1f}   ({total_runs} runs, {len(scenarios)} scenarios, candidate {args.candidate})")
    if not args.no_sweep:
        from durable_harness.harness._sweep import sweep

        base = next(s for s in scenarios if s.id == "baseline")
        start = time.perf_counter()
        results = list(sweep(base, args.candidate))
        elapsed = time.perf_counter() - start
        passed = sum(1 for _, d in results if d["verdict"] == "pass")
        print(f"crash-point sweep of baseline: {len(results)} points ({len(results) // 2} requests x before/after), "
              f"{passed} passed, {elapsed:.1f} s, {len(results) / elapsed:.1f} points/s")
    tracemalloc.start()
    run_scenario(scenarios[0], args.candidate)
    _, peak = tracemalloc.get_traced_memory()
    print(f"peak traced memory of one run: {peak / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
