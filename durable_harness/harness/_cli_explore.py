"""``durable-harness explore``: search fault plans against a candidate, shrink a failure, export it.

Prints the seed first (the search is reproducible from it), then what the search covered and, for
a finding, the counter it broke, the shrunk plan as a scenario file, and the command that
reproduces it. The report folder keeps the search's example database (``hypothesis/``), so a
rerun finds the same failure at once, and ``exploration.json``. Exit 1 for a plan that breaks a
safety checker, 2 for one that leaves the job stuck, 0 for none within the budget, 3 for bad usage.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

__all__ = ["add_explore_parser", "budget_seconds", "cmd_explore"]

_BUDGET = re.compile(r"^(\d+(?:\.\d+)?)(s|m|h)?$")


def budget_seconds(text: str) -> float:
    """``60s``, ``2m``, ``1h`` or plain seconds; it must be more than zero."""
    match = _BUDGET.match(text.strip())
    if not match or float(match.group(1)) <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a budget: give a positive time such as 60s, 2m or 90")
    return float(match.group(1)) * {"s": 1, None: 1, "m": 60, "h": 3600}[match.group(2)]


def _jobs(text: str, usage_error: type[Exception]) -> int:
    from durable_harness.harness._parallel import default_jobs

    if text == "auto":
        return default_jobs()
    if not text.isdigit() or not 1 <= int(text) <= 64:
        raise usage_error(f"--jobs {text!r}: give 1 to 64 worker processes, or auto")
    return int(text)


def add_explore_parser(sub: Any, handler: Any, seed_type: Any) -> None:
    exp = sub.add_parser("explore", help="search fault plans that break a candidate; shrink and export the first")
    exp.add_argument("--candidate", default="reference", help="as for run (default: reference)")
    exp.add_argument("--workload", default="article", help="the workload to explore (default: article)")
    exp.add_argument("--budget", type=budget_seconds, default=60.0, metavar="TIME", help="search time, e.g. 60s or 2m (default 60s)")
    exp.add_argument("--max-plans", type=int, default=10_000, metavar="N", help="stop after N plans (default 10000)")
    exp.add_argument("--kinds", default=None, metavar="K1,K2", help="only these fault and action kinds (default: all)")
    exp.add_argument("--max-faults", type=int, default=3, metavar="K", help="entries per plan, 1 to K (default 3)")
    exp.add_argument("--no-actions", action="store_true", help="faults only; no people acting")
    exp.add_argument("--no-catalogue", action="store_true",
                     help="fresh plans only: no variations of the catalogue's scenarios")
    exp.add_argument("--seed", type=seed_type, default=0, help="the search's seed (default 0)")
    exp.add_argument("-j", "--jobs", default="auto", metavar="N",
                     help="worker processes for the first pass over the catalogue (default auto: one per core)")
    exp.add_argument("--export", type=Path, default=None, metavar="DIR", help="write the shrunk plan there as a scenario file")
    exp.add_argument("--report", type=Path, default=Path("harness-report") / "explore", metavar="DIR",
                     help="where the search's database and exploration.json go (default: ./harness-report/explore)")
    exp.set_defaults(func=handler)


def cmd_explore(args: argparse.Namespace, usage_error: type[Exception]) -> int:
    from durable_harness.harness._settings import check_settings
    from durable_harness.harness.actions import action_kinds
    from durable_harness.harness.isolation._probe import probe_candidate
    from durable_harness.harness.explore import coverage_lines, explore, export, scenario_yaml
    from durable_harness.harness.faults import fault_kinds
    from durable_harness.harness.workloads import workload_names

    probe_candidate(args.candidate)
    try:
        check_settings()
    except ValueError as err:
        raise usage_error(str(err)) from None
    if args.workload not in workload_names():
        raise usage_error(f"--workload {args.workload!r} is not a workload; known: {', '.join(workload_names())}")
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()] if args.kinds else None
    unknown = [k for k in kinds or [] if k not in fault_kinds() and k not in action_kinds()]
    if unknown:
        raise usage_error(f"--kinds: {', '.join(map(repr, unknown))} is no fault or action kind; known: "
                          f"{', '.join(fault_kinds() + action_kinds())}")
    if args.max_plans < 1 or not 1 <= args.max_faults <= 10:
        raise usage_error("--max-plans must be at least 1 and --max-faults from 1 to 10")
    jobs = _jobs(str(args.jobs), usage_error)
    args.report.mkdir(parents=True, exist_ok=True)
    print(f"exploring {args.candidate} ({args.workload}) with seed {args.seed}, budget {args.budget:g} s", flush=True)
    result = explore(args.candidate, args.workload, seed=args.seed, budget_s=args.budget, max_plans=args.max_plans,
                     kinds=kinds, max_entries=args.max_faults, database=args.report / "hypothesis",
                     actions=not args.no_actions, corpus=not args.no_catalogue, jobs=jobs)
    print("\n".join(coverage_lines(result)))
    summary: dict[str, Any] = {"seed": result.seed, "candidate": result.candidate, "workload": result.workload,
                               "plans": result.plans_run, "elapsed_s": result.elapsed_s,
                               "first_finding_s": result.first_finding_s, "kinds_tried": dict(result.kinds_tried),
                               "kinds_fired": dict(result.kinds_fired), "at_risk": dict(result.at_risk),
                               "finding": None}
    code = 0
    if result.harness_errors:
        print(f"the harness itself failed on {len(result.harness_errors)} plans: that is a bug of the harness")
        code = 3
    if result.finding is not None:
        finding = result.finding
        scenario_id, text = scenario_yaml(result, finding)
        print(f"\nFOUND after {result.first_finding_s} s: {finding.counter}: {finding.because}\n\n{text}")
        summary["finding"] = {"counter": finding.counter, "because": finding.because, "scenario": scenario_id,
                              "entries": len(finding.plan.entries), "world": dict(finding.plan.world),
                              "origin": finding.plan.origin}
        if args.export is not None:
            path = export(result, finding, args.export)
            print(f"exported: {path}\nreproduce: durable-harness run --candidate {args.candidate} --scenario {path}")
        code = max(code, 2 if finding.counter == "stuck_jobs" else 1) if code != 3 else 3
    else:
        print("\nno plan broke the candidate within the budget")
    (args.report / "exploration.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return code
