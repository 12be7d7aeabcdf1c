"""The article catalogue against a real WordPress behind the gate, against the same against the fake.

Usage: DH_REAL_WORDPRESS=http://USER:APP_PASSWORD@HOST:PORT python benchmarks/bench_real_wordpress.py [--repeat N]
       [--candidate SPEC] [--scenario ID ...] [--mutants]
(``.ci/real-wordpress.sh`` brings one up on Debian and prints that line.) Every article scenario that
applies against a real site (``services._applicability``) runs one after the other in this process,
in-process, once against the fake and once against the real site, ``--repeat`` times, alternating.
Printed per side: wall time of the whole catalogue (best and median) and the verdicts (which must
be equal: a difference is a fidelity finding, printed as such). With ``--mutants``: every mutant a scenario must catch, on that scenario, once against each side; the
verdicts must be equal too. Wall-clock time is measured here, in the benchmark, never inside the harness.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).parents[1]
sys.path.insert(0, str(REPO))

from durable_harness.harness import load_scenarios, run_scenario  # noqa: E402
from durable_harness.harness.services._applicability import not_applicable  # noqa: E402
from durable_harness.harness.services._upstream import Upstream  # noqa: E402


def _site() -> tuple[str, str, str]:
    raw = os.environ.get("DH_REAL_WORDPRESS", "")
    parts = urlsplit(raw)
    if not (parts.hostname and parts.username and parts.password):
        sys.exit("set DH_REAL_WORDPRESS=http://USER:APP_PASSWORD@HOST:PORT (.ci/real-wordpress.sh prints it)")
    return f"{parts.scheme}://{parts.hostname}:{parts.port}", parts.username, parts.password


def _catalogue(candidate: str, scenarios: list, real: bool) -> dict:
    site, user, password = _site()
    if real:
        os.environ.update(DH_SERVICE_WORDPRESS=site, DH_WORDPRESS_USER=user, DH_WORDPRESS_APP_PASSWORD=password)
    else:
        os.environ.pop("DH_SERVICE_WORDPRESS", None)
    verdicts = {}
    started = time.perf_counter()
    for scenario in scenarios:
        doc = run_scenario(scenario, candidate)
        verdicts[scenario.id] = doc["verdict"] if doc["error"] is None else f"error:{doc['error']['kind']}"
    return {"wall_s": time.perf_counter() - started, "verdicts": verdicts}


def _mutants(scenarios: list) -> None:
    """Every (mutant, scenario) the catalogue says must be caught, against the fake and the real site."""
    pairs = [(m, s) for s in scenarios for m in s.must_catch]
    results: dict[str, dict[str, str]] = {}
    walls = {"fake": 0.0, "real": 0.0}
    for side in ("fake", "real"):
        started = time.perf_counter()
        for mutant, scenario in pairs:
            verdicts = _catalogue(mutant, [scenario], side == "real")["verdicts"]
            results.setdefault(f"{mutant} @ {scenario.id}", {})[side] = verdicts[scenario.id]
        walls[side] = round(time.perf_counter() - started, 2)
    print(json.dumps({"pairs": len(pairs), "wall_s": walls,
                      "caught": {side: sum(r[side] != "pass" for r in results.values()) for side in walls},
                      "fidelity_findings": {k: r for k, r in results.items() if r["fake"] != r["real"]}}, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--candidate", default="reference")
    parser.add_argument("--scenario", action="append", default=[], help="an article scenario id (default: all that apply)")
    parser.add_argument("--mutants", action="store_true",
                        help="instead: each scenario's must-catch mutants, once against each side, verdicts compared")
    args = parser.parse_args()
    _site()
    every = {"wordpress": Upstream("wordpress", "http://real.invalid", "", "")}
    scenarios = [s for s in load_scenarios([REPO / "durable_harness" / "scenarios"])
                 if s.workload.kind == "article" and not_applicable(s, every) is None
                 and (not args.scenario or s.id in args.scenario)]
    if args.mutants:
        _mutants(scenarios)
        return
    walls: dict[str, list[float]] = {"fake": [], "real": []}
    verdicts: dict[str, dict[str, str]] = {}
    for _ in range(args.repeat):
        for side in ("fake", "real"):
            result = _catalogue(args.candidate, scenarios, side == "real")
            walls[side].append(result["wall_s"])
            verdicts[side] = result["verdicts"]
    rows = {side: {"best_s": round(min(w), 2), "median_s": round(statistics.median(w), 2), "runs": len(w)}
            for side, w in walls.items()}
    findings = {sid: {"fake": verdicts["fake"][sid], "real": verdicts["real"][sid]}
                for sid in verdicts["fake"] if verdicts["fake"][sid] != verdicts["real"][sid]}
    print(json.dumps({"candidate": args.candidate, "scenarios": len(scenarios), "wall": rows,
                      "real_over_fake": round(rows["real"]["best_s"] / rows["fake"]["best_s"], 2),
                      "passed": {side: sum(v == "pass" for v in verdicts[side].values()) for side in verdicts},
                      "fidelity_findings": findings}, indent=1))


if __name__ == "__main__":
    main()
