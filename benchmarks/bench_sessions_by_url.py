"""The catalogue against a sessions API by URL (``serve-fake openai`` as a process of its own, behind
the gate), against the same with the sessions fake inside the harness.

Usage: python benchmarks/bench_sessions_by_url.py [-j N] [--candidate SPEC] [--scenario PATH ...]
Starts ``durable-harness serve-fake openai``, then runs every scenario that applies against a
sessions API by URL (``services._applicability``) twice with ``durable-harness run -j N``: once with
the fake inside the harness (compressed real time, the default scale), once through
``--service openai=URL`` (the wall clock, scale 1). Printed per side: wall time and the verdicts, which must be equal (a difference is a fidelity finding, printed as such). The
candidate must be a process (default: the reference, served). Wall-clock time is measured here,
in the benchmark, never inside the harness.
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

REPO = Path(__file__).parents[1]
sys.path.insert(0, str(REPO))

from durable_harness.harness import load_scenarios  # noqa: E402
from durable_harness.harness.services._applicability import not_applicable  # noqa: E402
from durable_harness.harness.services._upstream import Upstream  # noqa: E402

CLI = [sys.executable, "-m", "durable_harness.harness.cli"]
REFERENCE = f"cmd:{shlex.quote(sys.executable)} -m durable_harness.candidates.reference.serve"


def _serve(folder: Path) -> tuple[subprocess.Popen[str], str, str]:
    env_file = folder / "fake-openai.env"
    child = subprocess.Popen([*CLI, "serve-fake", "openai", "--env-file", str(env_file)], stdout=subprocess.PIPE,
                             text=True, env={k: v for k, v in os.environ.items() if not k.startswith("DH_SERVICE_")})
    assert child.stdout is not None
    line = child.stdout.readline()
    if not line.startswith("openai: "):
        child.kill()
        sys.exit(f"serve-fake did not start: {line!r}")
    key = dict(row.split("=", 1) for row in env_file.read_text().splitlines())["OPENAI_API_KEY"]
    return child, line.split()[1], key


def _side(name: str, paths: list[str], candidate: str, jobs: int, folder: Path, env: dict[str, str],
          extra: list[str]) -> dict[str, object]:
    report = folder / name
    argv = [*CLI, "run", "-j", str(jobs), "--candidate", candidate, "--report", str(report), *extra]
    for path in paths:
        argv += ["--scenario", path]
    started = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    index = json.loads((report / "report.json").read_text())
    verdicts = {}
    for scenario_id in index["scenarios"]:
        doc = json.loads((report / scenario_id / "run.json").read_text())
        verdicts[scenario_id] = doc["verdict"] if doc["error"] is None else f"error:{doc['error']['kind']}"
    return {"wall_s": wall, "verdicts": verdicts}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-j", "--jobs", type=int, default=12, help="runs at once (they mostly wait; default 12)")
    parser.add_argument("--candidate", default=REFERENCE)
    parser.add_argument("--scenario", action="append", default=None, help="files or folders (default: the catalogue)")
    args = parser.parse_args()
    real = {"openai": Upstream("openai", "http://bench.invalid/v1", "", "")}
    scenarios = [s for s in load_scenarios(args.scenario or [REPO / "durable_harness" / "scenarios"])
                 if not_applicable(s, real) is None]
    paths = [str(s.source) for s in scenarios]
    with tempfile.TemporaryDirectory(prefix="bench-sessions-by-url-") as tmp:
        folder = Path(tmp)
        child, url, key = _serve(folder)
        try:
            base = {k: v for k, v in os.environ.items() if not k.startswith("DH_SERVICE_")}
            fake = _side("fake", paths, args.candidate, args.jobs, folder, base, [])
            by_url = _side("url", paths, args.candidate, args.jobs, folder,
                           {**base, "DH_OPENAI_API_KEY": key, "DURABLE_HARNESS_TIME_SCALE": "1"},
                           ["--service", f"openai={url}"])
        finally:
            child.terminate()
            child.wait(timeout=30)
    print(f"{len(scenarios)} scenarios apply against a sessions API by URL; -j {args.jobs}")
    for name, side in (("fake in the harness (scale 10)", fake), ("serve-fake by URL (wall clock)", by_url)):
        verdicts = side["verdicts"]
        assert isinstance(verdicts, dict)
        passed = sum(1 for v in verdicts.values() if v == "pass")
        print(f"  {name:34} wall {side['wall_s']:7.1f} s   {passed}/{len(verdicts)} pass")
    differ = {k: (v, by_url["verdicts"].get(k)) for k, v in fake["verdicts"].items()  # type: ignore[union-attr]
              if by_url["verdicts"].get(k) != v}  # type: ignore[union-attr]
    for scenario_id, (here, there) in sorted(differ.items()):
        print(f"fidelity finding: {scenario_id}: {here} with the fake inside, {there} by URL")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
