"""``durable-harness explore``: search fault plans against a candidate, shrink a failure, export it.

Prints the seed first (the search is reproducible from it), then what the search covered and, for
a finding, the counter it broke, the shrunk plan as a scenario file, and the command that
reproduces it. The report folder keeps the search's example database (``hypothesis/``), so a
rerun finds the same failure at once, and ``exploration.json``. Exit 1 for a plan that breaks a
safety checker, 2 for one that leaves the job stuck, 0 for none within the budget, 3 for bad usage.

``--shard K/N`` makes the search share K of N (``explore._shards``); ``explore merge DIR...`` puts
the shards' folders back together (``explore._merge``), with the same exit codes.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
from pathlib import Path
from typing import Any

__all__ = ["add_explore_parser", "budget_seconds", "cmd_explore", "cmd_explore_merge"]

_SHARD_HELP = ("search share K of N (e.g. 2/4) for a CI matrix: every N-th plan of the first pass, fresh plans "
               "from a stream of its own; put the shards together with `durable-harness explore merge`")

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
    exp.add_argument("--guided", action="store_true",
                     help="half the plans drawn vary one that reached new code or behaviour (docs/exploration.md: "
                          "at a minute's budget it found fewer bugs than the plain draws)")
    exp.add_argument("--no-lines", action="store_true",
                     help="guide by the shapes of what runs did only: no tracing of a Python candidate's lines")
    exp.add_argument("--no-scratch", action="store_true",
                     help="no first pass of every single fault and action: the search draws from the start")
    exp.add_argument("--no-catalogue", action="store_true",
                     help="fresh plans only: no variations of the catalogue's scenarios")
    exp.add_argument("--seed", type=seed_type, default=0, help="the search's seed (default 0)")
    exp.add_argument("-j", "--jobs", default="auto", metavar="N",
                     help="worker processes for the first pass over the catalogue (default auto: one per core)")
    exp.add_argument("--export", type=Path, default=None, metavar="DIR", help="write the shrunk plan there as a scenario file")
    exp.add_argument("--report", type=Path, default=Path("harness-report") / "explore", metavar="DIR",
                     help="where the search's database and exploration.json go (default: ./harness-report/explore)")
    exp.add_argument("--shard", default=None, metavar="K/N", help=_SHARD_HELP)
    # What ``explore merge`` must not be given before ``merge``: the search's options (the shards say what the search was).
    searched = {a.dest: a.default for a in exp._actions if a.option_strings and a.dest not in ("help", "report", "export")}
    exp.set_defaults(func=handler, explore_command=None, search_defaults=searched)
    nested = exp.add_subparsers(dest="explore_command", required=False, metavar="merge", parser_class=type(exp),
                                help="`explore merge DIR... --report OUT`: the folders of explore --shard K/N as one "
                                     "(see `explore merge -h`); without it, explore searches")
    mrg = nested.add_parser("merge", help="merge the report folders of explore --shard K/N into one")
    mrg.add_argument("inputs", nargs="+", type=Path, metavar="DIR", help="the shards' report folders")
    mrg.add_argument("--report", type=Path, default=Path("harness-report") / "explore", metavar="DIR",
                     help="where the merged database and exploration.json go (default: ./harness-report/explore; "
                          "its earlier ones are replaced); not one of the shards")
    mrg.add_argument("--export", type=Path, default=None, metavar="DIR",
                     help="write the best finding there as a scenario file (default: the --report folder)")


def cmd_explore(args: argparse.Namespace, usage_error: type[Exception]) -> int:
    if args.explore_command == "merge":
        return cmd_explore_merge(args, usage_error)
    from durable_harness.harness._settings import check_settings
    from durable_harness.harness._shard import ShardError, parse_shard
    from durable_harness.harness.actions import action_kinds
    from durable_harness.harness.isolation._probe import probe_candidate
    from durable_harness.harness.explore import coverage_lines, explore, export, scenario_yaml
    from durable_harness.harness.faults import fault_kinds
    from durable_harness.harness.workloads import workload_names

    try:
        shard = None if args.shard is None else parse_shard(args.shard)
    except ShardError as err:
        raise usage_error(str(err)) from None
    probe_candidate(args.candidate)
    try:
        check_settings()
    except ValueError as err:
        raise usage_error(str(err)) from None
    from durable_harness.harness.services._upstream import upstreams

    if upstreams():  # its plans fork crash points as sweeps do, and it runs thousands of them
        raise usage_error(f"explore cannot search against a real service ({', '.join(sorted(upstreams()))}): its plans "
                          "fork the run at crash points, which a real site cannot follow; explore against the fakes")
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
    of = f", shard {shard.label}" if shard else ""
    print(f"exploring {args.candidate} ({args.workload}) with seed {args.seed}, budget {args.budget:g} s{of}", flush=True)
    result = explore(args.candidate, args.workload, seed=args.seed, budget_s=args.budget, max_plans=args.max_plans,
                     kinds=kinds, max_entries=args.max_faults, database=args.report / "hypothesis",
                     actions=not args.no_actions, corpus=not args.no_catalogue, jobs=jobs, guided=args.guided,
                     scratch=not args.no_scratch, lines=not args.no_lines, shard=shard)
    print("\n".join(coverage_lines(result)))
    summary: dict[str, Any] = {"seed": result.seed, "candidate": result.candidate, "workload": result.workload,
                               "shard": shard.to_json() if shard else None,
                               "search": {"kinds": kinds, "max_faults": args.max_faults, "actions": not args.no_actions,
                                          "catalogue": not args.no_catalogue, "guided": args.guided,
                                          "scratch": not args.no_scratch, "lines": not args.no_lines},
                               "budget_s": args.budget, "max_plans": args.max_plans,
                               "plans": result.plans_run, "elapsed_s": result.elapsed_s,
                               "first_finding_s": result.first_finding_s,
                               "first_finding_plans": result.first_finding_plans,
                               "harness_errors": len(result.harness_errors), "kinds_tried": dict(result.kinds_tried),
                               "kinds_fired": dict(result.kinds_fired), "at_risk": dict(result.at_risk),
                               "finding": None, "guided": result.guided, "reached": result.reached,
                               "reached_lines": result.reached_lines}
    code = 0
    if result.harness_errors:
        print(f"the harness itself failed on {len(result.harness_errors)} plans: that is a bug of the harness")
        code = 3
    if result.finding is not None:
        finding = result.finding
        scenario_id, text = scenario_yaml(result, finding)
        print(f"\nFOUND after {result.first_finding_s} s: {finding.counter}: {finding.because}\n\n{text}")
        plan = finding.plan
        summary["finding"] = {"counter": finding.counter, "because": finding.because, "scenario": scenario_id,
                              "entries": len(plan.entries), "world": dict(plan.world), "origin": plan.origin,
                              "plan": {"entries": list(plan.entries), "world": dict(plan.world), "origin": plan.origin,
                                       "deadline_s": plan.deadline_s},
                              "size": list(plan.size()), "yaml": text}
        if args.export is not None:
            path = export(result, finding, args.export)
            print(f"exported: {path}\nreproduce: durable-harness run --candidate {args.candidate} --scenario {path}")
        code = max(code, 2 if finding.counter == "stuck_jobs" else 1) if code != 3 else 3
    else:
        print("\nno plan broke the candidate within the budget")
    summary["exit_code"] = code
    (args.report / "exploration.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return code


def cmd_explore_merge(args: argparse.Namespace, usage_error: type[Exception]) -> int:
    """``explore merge DIR... --report OUT``: the shards' databases and findings as one; the best
    finding exported as a scenario file, and the commands that reproduce it."""
    from durable_harness.harness.explore._merge import MergeError, merge_explorations, shard_lines
    from durable_harness.harness.scenario import load_scenario

    given = sorted(f"--{dest.replace('_', '-')}" for dest, default in getattr(args, "search_defaults", {}).items()
                   if getattr(args, dest, default) != default)
    if given:  # `explore --candidate X merge ...`: the merged search is the shards', whatever was given before merge
        raise usage_error(f"explore merge takes the search from its shards; {', '.join(given)} before `merge` would be "
                          "ignored: give only the folders, --report and --export")

    try:
        doc = merge_explorations(args.inputs, args.report)
    except MergeError as err:
        raise usage_error(str(err)) from None
    merged = doc["merged"]
    print(f"merged {len(merged['shards'])} of {merged['count']} shards of the search of {doc['candidate']} "
          f"({doc['workload']}, seed {doc['seed']}): {doc['plans']} plans, the longest shard {doc['elapsed_s']} s")
    print("\n".join(shard_lines(doc)))
    db = merged["database"]
    print(f"example database: {db['entries']} entries ({db['duplicates']} duplicates left out), "
          f"{db['findings']} remembered findings -> {args.report / 'hypothesis'}")
    if merged["missing"]:
        print(f"PARTIAL: shard{'s' if len(merged['missing']) > 1 else ''} {', '.join(merged['missing'])} not given")
    if doc["harness_errors"]:
        print(f"the harness itself failed on {doc['harness_errors']} plans: that is a bug of the harness")
    finding = doc["finding"]
    if finding is None:
        print("\nno shard found a plan that breaks the candidate" + (
            "; with shards missing, that is no verdict" if merged["missing"] else ""))
    else:
        print(f"\nFOUND by shard {finding['shard']} after {doc['first_finding_s']} s: {finding['counter']}: "
              f"{finding['because']}\n\n{finding.get('yaml', '')}")
        if finding.get("yaml"):
            folder = args.export if args.export is not None else args.report
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{finding['scenario']}.yaml"
            path.write_text(str(finding["yaml"]), encoding="utf-8")
            load_scenario(path)
            finding["exported"] = str(path)
            finding["reproduce"] = shlex.join(["durable-harness", "run", "--candidate", str(doc["candidate"]),
                                               "--scenario", str(path)])
            print(f"exported: {path}\nreproduce: {finding['reproduce']}")
        print(f"the search that found it: {finding['search']}")
    print(f"rerun on the merged database{' (it tries the finding first)' if finding else ''}: {doc['rerun']}")
    (args.report / "exploration.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return int(doc["exit_code"])
