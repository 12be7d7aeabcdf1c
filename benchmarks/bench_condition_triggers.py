"""Do condition-triggered faults meet a process candidate in real time? Fire rates, measured.

Usage: python benchmarks/bench_condition_triggers.py [--repeat 20] [--jobs 2] [--candidate SPEC ...]

The scenarios whose faults or actions wait for a moment of the world (``while: agent_working``, a
filtered listing after a session was made, a read after an input) are run ``--repeat`` times against
each candidate as a process (real time, compressed by ``DURABLE_HARNESS_TIME_SCALE``), and the table
says, per scenario and candidate, in how many runs every entry fired (or was not exercised: a fault on
a channel the design never uses, such as the event stream for a control plane that polls), how many
runs passed, and the statuses seen. The default candidates: the polling control plane written from the contract alone
(``tests/candidates/strangers/polling``), served as a process, and the reference as a process.
"""

from __future__ import annotations

import argparse
import collections
import shlex
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from durable_harness.harness import load_scenario, run_scenario

REPO = Path(__file__).parents[1]
SCENARIOS = ("api-key-revoked-mid-turn", "session-listing-lags", "stale-session-reads", "stream-dropped-mid-turn",
             "executor-disconnected", "coding-api-key-revoked", "session-create-502-after-commit")
SERVE = f"cmd:{shlex.quote(sys.executable)} -m durable_harness.candidates.reference.serve"
DEFAULT_CANDIDATES = (f"{SERVE} --candidate tests.candidates.strangers.polling:create", SERVE)


def one(spec: str, scenario_id: str) -> tuple[str, str, dict[str, Any]]:
    doc = run_scenario(load_scenario(REPO / "durable_harness" / "scenarios" / f"{scenario_id}.yaml"), spec)
    return spec, scenario_id, doc


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--candidate", action="append", default=[])
    parser.add_argument("--scenario", action="append", default=[])
    args = parser.parse_args()
    candidates = args.candidate or list(DEFAULT_CANDIDATES)
    scenarios = args.scenario or list(SCENARIOS)
    work = [(c, s) for c in candidates for s in scenarios for _ in range(args.repeat)]
    fired: collections.Counter[tuple[str, str]] = collections.Counter()
    passed: collections.Counter[tuple[str, str]] = collections.Counter()
    statuses: dict[tuple[str, str], collections.Counter[str]] = collections.defaultdict(collections.Counter)
    with ThreadPoolExecutor(args.jobs) as pool:
        for spec, scenario_id, doc in pool.map(lambda w: one(*w), work):
            key = (spec, scenario_id)
            entries = doc["faults"]
            fired[key] += all(f["status"] in ("fired", "not_exercised") for f in entries)
            passed[key] += doc["verdict"] == "pass"
            for f in entries:
                statuses[key][f"{f['kind']}:{f['status']}"] += 1
    print(f"{args.repeat} runs each, time scale from DURABLE_HARNESS_TIME_SCALE (default 10)")
    for spec in candidates:
        print(f"\n{spec}")
        print(f"  {'scenario':34} {'met':>9} {'passed':>7}  statuses")
        for scenario_id in scenarios:
            key = (spec, scenario_id)
            seen = ", ".join(f"{k} {v}" for k, v in sorted(statuses[key].items()))
            print(f"  {scenario_id:34} {fired[key]:>4}/{args.repeat:<4} {passed[key]:>3}/{args.repeat:<3}  {seen}")


if __name__ == "__main__":
    main()
