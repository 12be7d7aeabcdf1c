"""What the catalogue concludes, for the reference and every mutant: a record to compare a change against.

Usage: python benchmarks/catalogue_digests.py [--out FILE] [--compare FILE] [--candidate SPEC ...] [-j N]

For every candidate (default: the reference and every mutant) and every scenario of the catalogue it
records the verdict, the safety and liveness verdicts, the exit code, the counters and the history's
digest; a sweep scenario also records each of its crash points (``points/<id>/run.json``). A change
that is meant to make things faster, not different, must leave this record as it was:
``--compare before.json`` prints every difference and exits 1 when there is one.

It is a check, not a benchmark: it writes each run's folder (to read the points of a sweep) and
measures nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from durable_harness.harness import load_scenarios, run_scenario
from durable_harness.harness.scenario import catalogue_dir

FORMAT = "durable-harness/catalogue-digests@1"


def _entry(doc: dict[str, Any]) -> str:
    """One run as a line: verdicts, exit code, the history's digest, a digest of every counter, and
    the counters that are not zero (to read a difference without rerunning)."""
    counters = doc.get("counters") or {}
    counted = hashlib.sha256(json.dumps(counters, sort_keys=True).encode()).hexdigest()[:12]
    nonzero = ",".join(f"{k}={v}" for k, v in sorted(counters.items()) if v)
    error = (doc.get("error") or {}).get("kind") or "-"
    return (f"{doc['verdict']} {doc['safety']} {doc['liveness']} exit={doc['exit_code']} error={error} "
            f"history={doc['history']['digest'][:16]} counters={counted} {nonzero}").rstrip()


def _one(task: tuple[str, str]) -> tuple[str, dict[str, str]]:
    candidate, path = task
    scenario = load_scenarios([Path(path)])[0]
    out: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="dh-digests-") as tmp:
        folder = Path(tmp) / scenario.id
        try:
            doc = run_scenario(scenario, candidate, None, folder)
        except Exception as err:  # recorded, so that a comparison shows it
            return candidate, {scenario.id: f"ERROR {type(err).__name__}: {err}"}
        out[scenario.id] = _entry(doc)
        points = folder / "points"
        if points.is_dir():
            for run in sorted(points.glob("*/run.json")):
                out[f"{scenario.id}/{run.parent.name}"] = _entry(json.loads(run.read_text("utf-8")))
    return candidate, out


def _candidates(given: list[str]) -> list[str]:
    if given:
        return given
    from durable_harness.candidates.mutants import mutant_names

    return ["reference", *(f"mutant:{name}" for name in mutant_names())]


def record(candidates: list[str], jobs: int) -> dict[str, Any]:
    paths = sorted(str(s.source) for s in load_scenarios([catalogue_dir()]))
    tasks = [(c, p) for c in candidates for p in paths]
    # The sweeps first: the longest tasks, so that the processes end together.
    tasks.sort(key=lambda t: "every-io-point" not in t[1])
    result: dict[str, dict[str, str]] = {c: {} for c in candidates}
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for n, (candidate, entries) in enumerate(pool.imap_unordered(_one, tasks), 1):
            result[candidate].update(entries)
            print(f"\r{n}/{len(tasks)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return {"format": FORMAT, "candidates": {c: dict(sorted(result[c].items())) for c in candidates}}


def compare(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Every difference, one line each (candidates missing from either side are named, not compared)."""
    lines = []
    for candidate, old in sorted(before["candidates"].items()):
        new = after["candidates"].get(candidate)
        if new is None:
            continue
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                lines.append(f"{candidate} {key}:\n  before {old.get(key)}\n  after  {new.get(key)}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    parser.add_argument("--compare", type=Path, help="a record made before the change")
    parser.add_argument("--candidate", action="append", default=[])
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    before = json.loads(args.compare.read_text("utf-8")) if args.compare else None
    candidates = _candidates(args.candidate)
    if before is not None and not args.candidate:
        candidates = [c for c in candidates if c in before["candidates"]] or candidates
    after = record(candidates, args.jobs)
    runs = sum(len(v) for v in after["candidates"].values())
    print(f"{len(candidates)} candidate(s), {runs} runs (scenarios and crash points)")
    if args.out:
        args.out.write_text(json.dumps(after, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        print(f"written: {args.out}")
    if before is None:
        return 0
    differences = compare(before, after)
    for line in differences:
        print(line)
    compared = sum(len(before["candidates"][c]) for c in candidates if c in before["candidates"])
    print(f"{len(differences)} difference(s) over {compared} recorded runs")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
