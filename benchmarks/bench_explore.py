"""Exploration against every bundled mutant and the reference: what it finds, how fast, how small.

Usage: python benchmarks/bench_explore.py [--budget 60] [--reference-budget 120] [--mutant NAME ...] [--jobs 2]
                                          [--seed 0] [--out FILE]

For each mutant (each its workload's exploration: the coding mutants explore the coding workload),
``explore`` runs with the budget; a finding is exported as a scenario file, which is then run twice
against the mutant (it must fail it the same way both times: the same verdict and history digest)
and once against the reference (it must pass). Then the reference is explored with its own budget:
any finding there is a false alarm. Printed per mutant: plans run, seconds to the first finding,
the shrunk plan's entries, the counter, and the two checks; then plans per second over all.
Wall-clock time is measured here, in the benchmark, never inside the harness.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from durable_harness.candidates.mutants import mutant_names
from durable_harness.harness import load_scenario, run_scenario
from durable_harness.harness.explore import explore, export

CODING = {"trust-environment-id", "size-only-check"}  # mutants whose bug lives in the coding workload


def _workload(mutant: str) -> str:
    return "coding" if mutant in CODING else "article"


def _one(candidate: str, workload: str, budget_s: float, seed: int, folder: Path, jobs: int) -> dict[str, Any]:
    started = time.monotonic()
    result = explore(candidate, workload, seed=seed, budget_s=budget_s, database=folder / "hypothesis", jobs=jobs)
    row: dict[str, Any] = {"candidate": candidate, "workload": workload, "plans": result.plans_run,
                           "seconds": round(time.monotonic() - started, 1), "first_finding_s": result.first_finding_s,
                           "finding": None, "harness_errors": len(result.harness_errors)}
    if result.finding is None:
        return row
    path = export(result, result.finding, folder / "export")
    scenario = load_scenario(path)
    one, two = run_scenario(scenario, candidate), run_scenario(scenario, candidate)
    reference = run_scenario(scenario, "reference")
    row["finding"] = {"counter": result.finding.counter, "entries": len(result.finding.plan.entries),
                      "world": dict(result.finding.plan.world), "origin": result.finding.plan.origin, "scenario": path.name,
                      "fails_again_the_same": one["verdict"] == two["verdict"] == "fail"
                      and one["history"]["digest"] == two["history"]["digest"],
                      "reference": reference["verdict"]}
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per mutant (default 60)")
    parser.add_argument("--reference-budget", type=float, default=120.0, help="seconds for the reference (default 120)")
    parser.add_argument("--mutant", action="append", default=[], help="only these (default: every bundled mutant)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes for explore's first pass (default 2)")
    parser.add_argument("--out", type=Path, default=None, help="write the rows as JSON")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-explore-") as tmp:
        for mutant in args.mutant or mutant_names():
            row = _one(f"mutant:{mutant}", _workload(mutant), args.budget, args.seed, Path(tmp) / mutant, args.jobs)
            rows.append(row)
            f = row["finding"]
            print(f"{mutant:34} plans {row['plans']:4}  " + (
                f"found in {row['first_finding_s']:6.1f} s: {f['counter']:26} entries {f['entries']}  "
                f"again the same: {f['fails_again_the_same']}  reference: {f['reference']}  from {f['origin']}" if f else
                f"nothing in {row['seconds']} s"), flush=True)
        for workload in ("article", "coding"):
            row = _one("reference", workload, args.reference_budget, args.seed, Path(tmp) / f"reference-{workload}",
                       args.jobs)
            rows.append(row)
            print(f"reference ({workload}){'':16} plans {row['plans']:4}  " + (
                f"FALSE ALARM: {row['finding']['counter']}" if row["finding"] else f"nothing in {row['seconds']} s"),
                flush=True)
    plans, seconds = sum(r["plans"] for r in rows), sum(r["seconds"] for r in rows)
    found = [r for r in rows if r["candidate"] != "reference" and r["finding"]]
    print(f"\n{len(found)} of {len(rows) - 2} mutants found; {plans} plans in {seconds:.0f} s: "
          f"{plans / seconds:.2f} plans per second")
    if args.out:
        args.out.write_text(json.dumps({"rows": rows}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
