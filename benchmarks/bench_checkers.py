"""What judging costs: each checker's time on real runs of the catalogue, in-process.

Usage: python benchmarks/bench_checkers.py [--repeat N] [--candidate SPEC] [--scenario ID ...]
Runs each (non-sweep) scenario once, then times every checker on that run's record ``--repeat``
times and prints, per checker, the median microseconds per run and its share of a run's wall time.
Wall-clock time is measured here, in the benchmark, never inside the harness.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from durable_harness.harness import load_scenarios
from durable_harness.harness._run import run_once
from durable_harness.harness.checkers import CheckInput, checkers

REPO = Path(__file__).parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--candidate", default="reference")
    parser.add_argument("--scenario", action="append", default=[])
    args = parser.parse_args()
    scenarios = [s for s in load_scenarios([REPO / "durable_harness" / "scenarios"]) if not s.sweep and (not args.scenario or s.id in args.scenario)]
    per_checker: dict[str, list[float]] = {c.name: [] for c in checkers()}
    run_s: list[float] = []
    for scenario in scenarios:
        start = time.perf_counter()
        doc, history = run_once(scenario, args.candidate)
        run_s.append(time.perf_counter() - start)
        inp = CheckInput(history, doc["truth"], doc["claims"], scenario, _job(doc, scenario), doc["faults"])
        for c in checkers():
            times = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                c.fn(inp)
                times.append(time.perf_counter() - t0)
            per_checker[c.name].append(statistics.median(times))
    mean_run = statistics.mean(run_s)
    print(f"{len(scenarios)} scenarios, candidate {args.candidate}; a run takes {1000 * mean_run:.1f} ms on average")
    print(f"{'checker':28} {'us/run':>9} {'share':>7}")
    for name, times in sorted(per_checker.items(), key=lambda kv: -statistics.mean(kv[1])):
        mean = statistics.mean(times)
        print(f"{name:28} {1e6 * mean:9.0f} {100 * mean / mean_run:6.2f}%")


def _job(doc: dict, scenario: object) -> dict:
    """The job as the run judged it (its latest version), rebuilt from the scenario and the claims."""
    from durable_harness.harness.workloads import get_workload

    w = scenario.workload  # type: ignore[attr-defined]
    job = get_workload(w.kind).build_job(w.job_id, w.task_version, w.params)
    if w.allowed_tools is not None:
        job["allowed_tools"] = list(w.allowed_tools)
    claims = doc.get("claims") or {}
    if claims.get("task_version"):
        job["task_version"] = str(claims["task_version"])
    return job


if __name__ == "__main__":
    main()
