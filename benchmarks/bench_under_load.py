"""The test suite on a machine made busy on purpose: which tests depend on the machine's speed.

Usage: python benchmarks/bench_under_load.py [--hogs N] [--workers N] [--timeout S] [PYTEST_ARGS...]

Starts ``--hogs`` processes that spin on the CPU (default: four per core, a load of about five
times the cores), runs ``pytest -m "slow or not slow"`` on what follows (default: the whole
suite) with ``--workers`` pytest-xdist workers (default: two per core, as ``make test``), and
prints the wall time, the load average before and after, and every test that failed or errored,
with the line that says why. The hogs are killed however the run ends.

A slower machine may make the suite slower, never red: every test it lists is a test that judges
the machine's speed (a bound in real seconds, a race against a process's start) instead of the
run's time, or a harness that waits in real time for something that scenario time should bound.
Wall-clock time is measured here, in the benchmark, never inside the harness.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPIN = "while True: pass"


def _hogs(count: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True) for _ in range(count)]


def _failures(output: str) -> list[str]:
    """``FAILED``/``ERROR`` lines of pytest's short summary."""
    return [line for line in output.splitlines() if re.match(r"^(FAILED|ERROR) ", line)]


def main() -> int:
    cores = os.cpu_count() or 1
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hogs", type=int, default=4 * cores, help="CPU-spinning processes beside the suite")
    parser.add_argument("--workers", type=int, default=2 * cores, help="pytest-xdist workers")
    parser.add_argument("--timeout", type=float, default=4 * 3600.0, help="real seconds before the run is given up")
    args, rest = parser.parse_known_args()
    selection = rest or ["tests"]
    command = [sys.executable, "-m", "pytest", "-m", "slow or not slow", "-q", "-rfE", "-n", str(args.workers),
               "--dist", "worksteal", "-p", "no:cacheprovider", *selection]
    hogs = _hogs(args.hogs)
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=args.timeout)
        output, code = done.stdout + done.stderr, done.returncode
    except subprocess.TimeoutExpired as err:
        output, code = (err.stdout or b"").decode(errors="replace") if isinstance(err.stdout, bytes) else (err.stdout or ""), -1
    finally:
        wall = time.perf_counter() - start
        load_after = os.getloadavg()[0]
        for hog in hogs:
            try:
                os.killpg(hog.pid, signal.SIGKILL)
            except OSError:
                pass
            hog.wait()
    summary = next((line for line in reversed(output.splitlines()) if " in " in line and ("passed" in line or "failed" in line)),
                   "(no summary: the run was given up)")
    print(f"{len(hogs)} hogs on {cores} cores, {args.workers} pytest workers: {' '.join(selection)}")
    print(f"load average {load_before:.1f} before, {load_after:.1f} after; wall {wall:.0f} s; exit {code}")
    print(summary)
    for line in _failures(output):
        print(f"  {line}")
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
