"""How many catalogue scenarios do control planes written by strangers pass, in each driver?

Usage: python benchmarks/bench_strangers.py [--checkout DIR] [--jobs N] [--only NAME ...] [--scenario PATH]

Runs the whole catalogue (``durable_harness/scenarios``) against each correct design of
``tests/candidates/strangers/`` (README there), in-process and served as a process, with the harness
of ``--checkout`` (default: this repository; give a worktree of an older commit, with the strangers'
folder copied into it, to measure "before"). Prints, per design and driver, the scenarios that
passed, failed, were unknown, or could not be run, and lists every scenario that did not pass with
its verdict and the first checker's because-line. Each run's report folder is kept under
``--out`` (default: a temporary folder) for reading.

The process runs take real time (``DURABLE_HARNESS_TIME_SCALE``, 10 unless set); the DBOS design
runs on a scratch PostgreSQL database per run (``DH_CANDIDATE_DATABASE=postgres``) and needs the
``dbos`` package (``tests/candidates/strangers/dbos/requirements.txt``).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).parents[1]
PY = shlex.quote(sys.executable)
SERVE = f"{PY} -m durable_harness.candidates.reference.serve --candidate"
# (name, driver, candidate spec, extra environment)
DESIGNS: list[tuple[str, str, str, dict[str, str]]] = [
    ("outbox", "in-process", "tests.candidates.strangers.outbox:create", {}),
    ("outbox", "process", f"cmd:{SERVE} tests.candidates.strangers.outbox:create", {}),
    ("polling", "in-process", "tests.candidates.strangers.polling:create", {}),
    ("polling-blocking", "in-process", "tests.candidates.strangers.polling:create_blocking", {}),
    ("polling", "process", f"cmd:{SERVE} tests.candidates.strangers.polling:create", {}),
    ("dbos", "process", f"cmd:{PY} tests/candidates/strangers/dbos/serve.py", {"DH_CANDIDATE_DATABASE": "postgres"}),
    ("langgraph", "process", f"cmd:{PY} tests/candidates/strangers/langgraph/serve.py",
     {"DH_CANDIDATE_DATABASE": "postgres"}),
]


def run(checkout: Path, spec: str, env: dict[str, str], jobs: int, out: Path, scenario: str | None) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "durable_harness.harness.cli", "run", "--candidate", spec, "-j", str(jobs),
           "--report", str(out)]
    if scenario:
        cmd += ["--scenario", scenario]
    environ = {**os.environ, "PYTHONPATH": str(checkout), **env}
    began = time.monotonic()
    code = subprocess.run(cmd, cwd=checkout, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          check=False).returncode
    docs = [json.loads(p.read_text()) for p in sorted(out.glob("*/run.json"))]
    return {"exit": code, "seconds": time.monotonic() - began, "docs": docs}


def status(doc: dict[str, Any]) -> str:
    return "error" if doc.get("error") else str(doc["verdict"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkout", type=Path, default=REPO)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", action="append", default=[], help="design names (outbox, polling, dbos, ...)")
    parser.add_argument("--driver", choices=["in-process", "process"], default=None)
    parser.add_argument("--scenario", default=None, help="a scenario file or folder (default: the catalogue)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-strangers-"))
    checkout = args.checkout.resolve()
    print(f"harness at {checkout}; reports under {out}")
    for name, driver, spec, env in DESIGNS:
        if (args.only and name not in args.only) or (args.driver and driver != args.driver):
            continue
        if not (checkout / "tests" / "candidates" / "strangers" / name.split("-")[0]).exists():
            print(f"\n{name} ({driver}): not in this checkout, skipped")
            continue
        result = run(checkout, spec, env, args.jobs, out / f"{name}-{driver}", args.scenario)
        docs = result["docs"]
        counts = {s: sum(1 for d in docs if status(d) == s) for s in ("pass", "fail", "unknown", "error")}
        print(f"\n{name} ({driver}): {counts['pass']} of {len(docs)} pass, {counts['fail']} fail, "
              f"{counts['unknown']} unknown, {counts['error']} not run; exit {result['exit']}, "
              f"{result['seconds']:.0f} s")
        for doc in docs:
            if status(doc) == "pass":
                continue
            bad = next((c for c in doc["checkers"] if c["verdict"] != "pass"), None)
            why = (doc.get("error") or {}).get("message") if bad is None else f"{bad['name']}: {bad['because']}"
            print(f"  {status(doc):7} {doc['scenario']['id']}: {str(why)[:220]}")


if __name__ == "__main__":
    main()
