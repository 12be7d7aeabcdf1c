"""Exploration against every bundled mutant and the reference: what it finds, how fast, how small.

Usage: python benchmarks/bench_explore.py [--budget 60] [--reference-budget 120] [--mutant NAME ...]
                                          [--seed 0 ...] [--modes default,guided,unguided] [--with-catalogue]
                                          [-j 2] [--out FILE] [--markdown FILE]

From scratch by default (``explore --no-catalogue``: no variation of the catalogue's scenarios, so
a mutant is found by what the search itself draws, not by a scenario written for it). For each
mutant (each its workload's exploration: the coding mutants explore the coding workload), each seed
and each mode (``default``: explore as it runs by default, the pass of every single fault and
action first, then Hypothesis's draws; ``guided``: the guided search alone, half its plans variations
of the plans that reached new code or new shapes of behaviour; ``unguided``: Hypothesis's draws
alone, to measure the guidance against), ``explore`` runs with the budget; a
finding is exported as a scenario file, which is then run twice against the mutant (it must fail
it the same way both times: the same verdict and history digest) and once against the reference
(it must pass). Then the reference is explored with its own budget, in each mode: any finding
there is a false alarm. Printed per search: plans and seconds until the first failing plan, the
shrunk plan's entries, the counter and the two checks; then a table per mode (``--markdown``
writes it). ``-j`` searches run side by side, each in a process of its own (one core each).
Wall-clock time is measured here, in the benchmark, never inside the harness.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import statistics
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


def _one(task: tuple[str, str, float, int, str, bool, str]) -> dict[str, Any]:
    candidate, workload, budget_s, seed, mode, catalogue, tmp = task
    folder = Path(tmp) / f"{candidate.replace(':', '-')}-{workload}-{seed}-{mode}"
    started, cpu = time.monotonic(), time.process_time()
    result = explore(candidate, workload, seed=seed, budget_s=budget_s, database=folder / "hypothesis",
                     corpus=catalogue, guided=mode == "guided", scratch=mode == "default")
    row: dict[str, Any] = {"candidate": candidate, "workload": workload, "seed": seed, "mode": mode,
                           "plans": result.plans_run, "seconds": round(time.monotonic() - started, 1),
                           "cpu_s": round(time.process_time() - cpu, 1),
                           "first_finding_s": result.first_finding_s, "first_finding_plans": result.first_finding_plans,
                           "reached": result.reached, "reached_lines": result.reached_lines,
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


def _line(row: dict[str, Any]) -> str:
    f = row["finding"]
    name = row["candidate"] if row["candidate"] == "reference" else row["candidate"].split(":", 1)[1]
    head = f"{name:30} {row['mode']:8} seed {row['seed']}  plans {row['plans']:4}  "
    if row["candidate"] == "reference":
        return head + (f"FALSE ALARM: {f['counter']}" if f else f"nothing in {row['seconds']} s")
    return head + (f"found in {row['first_finding_s']:6.1f} s ({row['first_finding_plans']} plans): {f['counter']:24} "
                   f"entries {f['entries']}  again the same: {f['fails_again_the_same']}  reference: {f['reference']}"
                   if f else f"nothing in {row['seconds']} s")


def table(rows: list[dict[str, Any]], modes: list[str], budget_s: float) -> str:
    """Markdown: per mutant, for each mode, the median seconds and plans to the first finding over the
    seeds (found in k of n), the shrunk plan's entries, and whether the export held."""
    mutants = sorted({r["candidate"] for r in rows if r["candidate"] != "reference"})
    head = "| mutant | " + " | ".join(f"{m}: found · median s (plans) · entries" for m in modes) + " |"
    lines = [head, "|---|" + "---|" * len(modes)]
    totals = {m: 0 for m in modes}
    for mutant in mutants:
        cells = []
        for mode in modes:
            mine = [r for r in rows if r["candidate"] == mutant and r["mode"] == mode]
            found = [r for r in mine if r["finding"]]
            totals[mode] += bool(found)
            if not found:
                cells.append(f"0/{len(mine)} in {budget_s:g} s")
                continue
            held = all(r["finding"]["fails_again_the_same"] and r["finding"]["reference"] == "pass" for r in found)
            cells.append(f"{len(found)}/{len(mine)} · {statistics.median(r['first_finding_s'] for r in found):.1f} s "
                         f"({statistics.median(r['first_finding_plans'] for r in found):g}) · "
                         f"{statistics.median(r['finding']['entries'] for r in found):g}{'' if held else ' · export FAILED'}")
        lines.append(f"| {mutant.split(':', 1)[1]} | " + " | ".join(cells) + " |")
    lines.append("| **found at least once** | " + " | ".join(f"**{totals[m]} of {len(mutants)}**" for m in modes) + " |")
    alarms = [r for r in rows if r["candidate"] == "reference" and r["finding"]]
    lines.append("")
    lines.append(f"The reference: {len(alarms)} false alarms in "
                 f"{len([r for r in rows if r['candidate'] == 'reference'])} searches.")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per search of a mutant (default 60)")
    parser.add_argument("--reference-budget", type=float, default=120.0, help="seconds for the reference (default 120)")
    parser.add_argument("--mutant", action="append", default=[], help="only these (default: every bundled mutant)")
    parser.add_argument("--seed", type=int, action="append", default=[], help="seeds (repeatable; default 0)")
    parser.add_argument("--modes", default="default,guided,unguided",
                        help="default (explore's default: the pass of every single fault, then Hypothesis's draws), "
                             "guided (the guided search alone), unguided (Hypothesis's draws alone); default: all three")
    parser.add_argument("--with-catalogue", action="store_true", help="also vary the catalogue's scenarios")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="searches side by side (default 2)")
    parser.add_argument("--out", type=Path, default=None, help="write the rows as JSON")
    parser.add_argument("--markdown", type=Path, default=None, help="write the table as Markdown")
    args = parser.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    seeds = args.seed or [0]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-explore-") as tmp:
        tasks = [(f"mutant:{m}", _workload(m), args.budget, seed, mode, args.with_catalogue, tmp)
                 for m in args.mutant or mutant_names() for seed in seeds for mode in modes]
        tasks += [("reference", w, args.reference_budget, seeds[0], mode, args.with_catalogue, tmp)
                  for w in ("article", "coding") for mode in modes]
        started = time.monotonic()
        with concurrent.futures.ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            for row in pool.map(_one, tasks):
                rows.append(row)
                print(_line(row), flush=True)
        wall = time.monotonic() - started
    plans, cpu = sum(r["plans"] for r in rows), sum(r["cpu_s"] for r in rows)
    text = table(rows, modes, args.budget)
    print(f"\n{text}\n\n{len(rows)} searches, {plans} plans in {wall:.0f} s wall ({args.jobs} at a time), "
          f"{cpu:.0f} s of the searches' own CPU")
    if args.markdown:
        args.markdown.write_text(text + "\n", encoding="utf-8")
    if args.out:
        args.out.write_text(json.dumps({"rows": rows}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
