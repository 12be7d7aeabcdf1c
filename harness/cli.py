"""The ``durable-harness`` command: run, validate, list, render.

Exit codes: 0 all pass; 1 a safety violation; 2 a liveness failure or an unknown verdict (fails
closed); 3 the harness could not run (bad scenario, bad usage, candidate would not start).
Across several scenarios the most serious wins, in the order 1, 3, 2, 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness._run import run_scenario
from harness.candidate import CandidateSpecError, resolve_candidate
from harness.scenario import ScenarioError, catalogue_dir, load_scenarios

__all__ = ["main"]

_SEVERITY = (1, 3, 2, 0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except (ScenarioError, CandidateSpecError) as err:
        print(f"durable-harness: error: {err}", file=sys.stderr)
        return 3
    except BrokenPipeError:  # `durable-harness run | head`: the reader left; the report is written
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 3
    return code


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="durable-harness", description="Fault-injection acceptance tests for agent control planes.")
    sub = p.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run scenarios against a candidate and write a report")
    run.add_argument("--candidate", default="reference", help="reference | mutant:NAME | package.module:factory (default: reference)")
    run.add_argument("--scenario", action="append", default=[], metavar="PATH", help="a scenario file or directory (repeatable; default: the bundled catalogue)")
    run.add_argument("--seed", type=int, default=None, help="root seed (default: each scenario's own, derived from its id)")
    run.add_argument("--report", type=Path, default=Path("harness-report"), metavar="DIR", help="where run.json, history and the summary go (default: ./harness-report)")
    run.add_argument("--check-determinism", action="store_true",
                     help="run each scenario twice with the same seed and fail (exit 2) if the histories differ")
    run.set_defaults(func=_cmd_run)

    swp = sub.add_parser("sweep", help="crash the candidate at every I/O point of a scenario (one run per point)")
    swp.add_argument("--candidate", default="reference", help="as for run (default: reference)")
    swp.add_argument("--scenario", default=None, metavar="PATH", help="the base scenario (default: the catalogue's baseline)")
    swp.add_argument("--seed", type=int, default=None, help="root seed (default: the scenario's own)")
    swp.add_argument("--point", default=None, metavar="K:SIDE", help="run one point only, e.g. 17:after (as printed by a failure)")
    swp.add_argument("--report", type=Path, default=Path("harness-report") / "sweep", metavar="DIR")
    swp.set_defaults(func=_cmd_sweep)

    val = sub.add_parser("validate", help="check scenario files against the schema")
    val.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: the bundled catalogue)")
    val.set_defaults(func=_cmd_validate)

    lst = sub.add_parser("list", help="list scenarios, fault kinds, checkers and bundled candidates")
    lst.add_argument("paths", nargs="*", metavar="PATH")
    lst.set_defaults(func=_cmd_list)

    ren = sub.add_parser("render", help="rebuild summary.md and junit.xml from a report directory, without rerunning")
    ren.add_argument("report", type=Path, metavar="DIR")
    ren.set_defaults(func=_cmd_render)
    return p


def _paths(given: Sequence[str]) -> list[Path | str]:
    return list(given) if given else [_catalogue()]


def _catalogue() -> Path:
    """The bundled catalogue, relative to the working directory when it lies below it, so that
    reproduce commands stay short and work from a checkout."""
    path = catalogue_dir()
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def _cmd_validate(args: argparse.Namespace) -> int:
    scenarios = load_scenarios(_paths(args.paths))
    for s in scenarios:
        print(f"ok  {s.source}  ({s.id})")
    print(f"{len(scenarios)} scenario file(s) valid")
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    from candidates.mutants import MUTANTS
    from harness.checkers import checker_names
    from harness.faults import fault_kinds

    print("scenarios:")
    for s in load_scenarios(_paths(args.paths)):
        catches = ", ".join(s.must_catch) or "-"
        print(f"  {s.id:34} {s.title}  [must catch: {catches}]")
    print("candidates:\n  reference")
    for name, m in sorted(MUTANTS.items()):
        print(f"  mutant:{name:26} {m.bug}")
    print("fault kinds:\n  " + ", ".join(fault_kinds()))
    print("checkers:\n  " + ", ".join(checker_names()))
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    scenarios = load_scenarios(_paths(args.scenario))  # all validated before anything runs
    resolve_candidate(args.candidate)
    if not scenarios:
        raise ScenarioError("no scenario files found; give --scenario PATH")
    report: Path = args.report
    report.mkdir(parents=True, exist_ok=True)
    docs: list[dict[str, Any]] = []
    for scenario in scenarios:
        doc = run_scenario(scenario, args.candidate, args.seed, report / scenario.id)
        if args.check_determinism:
            doc = _check_determinism(doc, scenario, args.candidate, report / scenario.id)
        docs.append(doc)
        _print_line(doc)
    _write_outputs(report, docs)
    codes = {int(d["exit_code"]) for d in docs}
    code = next(c for c in _SEVERITY if c in codes or c == 0)
    passed = sum(1 for d in docs if d["verdict"] == "pass")
    print(f"\n{passed}/{len(docs)} scenarios passed for {args.candidate}; report: {report / 'summary.md'}; exit {code}")
    return code


def _check_determinism(doc: dict[str, Any], scenario: Any, candidate: str, out: Path) -> dict[str, Any]:
    """Run the same seed again; a different history means the run is not a function of its seed."""
    again_dir = out / "determinism-check"
    again = run_scenario(scenario, candidate, doc["seed"], again_dir)
    if again["history"]["digest"] == doc["history"]["digest"]:
        print(f"         determinism: same history twice ({doc['history']['digest'][:16]})")
        return doc
    first = (out / "history.jsonl").read_text("utf-8").splitlines()
    second = (again_dir / "history.jsonl").read_text("utf-8").splitlines()
    n = next((i for i, (a, b) in enumerate(zip(first, second)) if a != b), min(len(first), len(second)))
    because = (f"the same seed gave two different histories; first divergence at entry {n}: "
               f"{(first[n] if n < len(first) else '<end>')[:160]} / {(second[n] if n < len(second) else '<end>')[:160]}")
    doc = dict(doc)
    doc["checkers"] = [*doc["checkers"], {"name": "determinism", "class": "liveness", "verdict": "unknown",
                                          "count": 1, "because": because, "witnesses": []}]
    doc["counters"] = {**doc["counters"], "determinism": 1}
    doc["liveness"] = "unknown" if doc["liveness"] == "pass" else doc["liveness"]
    doc["verdict"] = "fail" if doc["verdict"] == "fail" else "unknown"
    doc["exit_code"] = max(doc["exit_code"], 2) if doc["exit_code"] != 1 else 1
    (out / "run.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return doc


def _cmd_sweep(args: argparse.Namespace) -> int:
    from harness._sweep import POINTS, SweepPoint, run_point, sweep
    from harness.scenario import load_scenario

    base = load_scenario(args.scenario or _catalogue() / "baseline.yaml")
    resolve_candidate(args.candidate)
    report: Path = args.report
    report.mkdir(parents=True, exist_ok=True)
    seed = base.default_seed if args.seed is None else args.seed
    if args.point:
        k, _, side = args.point.partition(":")
        if not k.isdigit() or int(k) < 1 or side not in POINTS:
            raise ScenarioError(f"--point {args.point!r} must be K:before or K:after with K >= 1, e.g. 17:after")
        point = SweepPoint(int(k), side, "request " + k)
        results = [(point, run_point(base, point, args.candidate, seed, report))]
    else:
        results = list(sweep(base, args.candidate, seed, report))
    docs = []
    for point, doc in results:
        docs.append(doc)
        if doc["verdict"] != "pass":
            print(f"crash point {point.label} ({point.request}):")
            _print_line(doc)
    _write_outputs(report, docs)
    codes = {int(d["exit_code"]) for d in docs}
    code = next(c for c in _SEVERITY if c in codes or c == 0)
    passed = sum(1 for d in docs if d["verdict"] == "pass")
    print(f"crash-point sweep of {base.id} for {args.candidate}: {len(docs)} points "
          f"({len(docs) // len(POINTS) if not args.point else 1} requests x before/after), {passed} passed; exit {code}")
    return code


def _print_line(doc: dict[str, Any]) -> None:
    mark = {"pass": "PASS", "fail": "FAIL", "unknown": "UNKNOWN"}[doc["verdict"]]
    counters = " ".join(f"{c['name']}={c['count']}" for c in sorted(doc["checkers"], key=lambda c: c["name"])
                        if c["verdict"] != "pass")
    print(f"{mark:8} {doc['scenario']['id']:34} {counters or ''}  history {doc['history']['digest'][:16]}")
    if doc["verdict"] != "pass":
        if doc.get("error"):
            print(f"         harness: {doc['error']}")
        for c in doc["checkers"]:
            if c["verdict"] != "pass":
                print(f"         {c['name']}: {c['verdict']}: {c['because']}")
                for w in c["witnesses"][:3]:
                    print(f"           witness #{w['index']} t={w['time_s']}s: {w['summary']}")
        print(f"         reproduce: {doc['reproduce']}")


def _write_outputs(report: Path, docs: list[dict[str, Any]]) -> None:
    from reports import write_outputs

    write_outputs(report, docs)


def _cmd_render(args: argparse.Namespace) -> int:
    from reports import load_runs, write_outputs

    runs = load_runs(args.report)
    if not runs:
        print(f"durable-harness: error: {args.report}: no */run.json found", file=sys.stderr)
        return 3
    write_outputs(args.report, runs)
    print(f"rendered {len(runs)} run(s) into {args.report / 'summary.md'} and {args.report / 'junit.xml'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
