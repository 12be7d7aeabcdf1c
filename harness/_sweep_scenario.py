"""A sweep as one scenario of the catalogue: ``sweep: crash_points`` in a scenario file.

The scenario's workload is swept (a crash at every I/O point, before and after each request; see
``_sweep``) and the point runs are folded into one run document: each checker's count is summed
over the points and its verdict is the worst of them; its "because" and witnesses are those of the
first point that did not pass, whose own reproduce command becomes the scenario's. Every point's
run.json and history are kept under ``points/`` in the scenario's report folder; the scenario's own
history is that first failing point's (or the clean run's, when every point passed).

It deliberately does not invent verdicts: every number in the folded document is a point's.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

from harness._run import run_with_history
from harness._sweep import run_point, sweep_points
from harness.checkers import combine
from harness.scenario import Scenario

__all__ = ["run_sweep_scenario"]


def run_sweep_scenario(scenario: Scenario, candidate: str, seed: int | None, out_dir: Path | None) -> dict[str, Any]:
    base = dataclasses.replace(scenario, sweep=None)
    seed = scenario.default_seed if seed is None else seed
    points, _ = sweep_points(base, candidate, seed)
    docs = [(p, run_point(base, p, candidate, seed, out_dir / "points" if out_dir is not None else None)) for p in points]
    clean, _history = run_with_history(dataclasses.replace(base, faults=()), candidate, seed, out_dir)
    first_bad = next(((p, d) for p, d in docs if d["verdict"] != "pass"), None)
    doc = dict(first_bad[1] if first_bad else clean)
    doc["scenario"] = {**doc["scenario"], "id": scenario.id, "title": scenario.title, "path": str(scenario.source)}
    doc["checkers"] = _fold_checkers([d for _, d in docs], first_bad)
    doc["counters"] = {c["name"]: c["count"] for c in doc["checkers"]}
    doc["faults"] = [f for _, d in docs for f in d["faults"]]
    for key in ("safety", "liveness", "verdict"):
        doc[key] = combine([d[key] for _, d in docs]) if docs else "unknown"
    doc["exit_code"] = 1 if doc["safety"] == "fail" else 0 if doc["verdict"] == "pass" else 2
    doc["error"] = next((d["error"] for _, d in docs if d.get("error")), None)
    if doc["error"] is not None:
        doc["exit_code"] = 3 if doc["safety"] != "fail" else 1
    doc["timings"] = {"virtual_s": sum(d["timings"]["virtual_s"] for _, d in docs),
                      "steps": sum(d["timings"]["steps"] for _, d in docs),
                      "requests": sum(d["timings"]["requests"] for _, d in docs),
                      "restarts": sum(d["timings"]["restarts"] for _, d in docs)}
    if out_dir is not None:
        if first_bad is not None:  # the scenario's history is the first failing point's
            point_dir = out_dir / "points" / first_bad[1]["scenario"]["id"]
            shutil.copyfile(point_dir / "history.jsonl", out_dir / "history.jsonl")
        (out_dir / "run.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return doc


def _fold_checkers(docs: list[dict[str, Any]], first_bad: tuple[Any, dict[str, Any]] | None) -> list[dict[str, Any]]:
    names = [c["name"] for c in (docs[0]["checkers"] if docs else [])]
    folded = []
    for name in names:
        results = [next(c for c in d["checkers"] if c["name"] == name) for d in docs]
        verdict = combine([c["verdict"] for c in results])
        bad = [(d, c) for d, c in zip(docs, results) if c["verdict"] != "pass"]
        count = sum(int(c["count"]) for c in results)
        if bad:
            where = ", ".join(d["scenario"]["id"].rsplit("-crash-", 1)[-1] for d, _ in bad[:8])
            more = f" and {len(bad) - 8} more" if len(bad) > 8 else ""
            because = f"{len(bad)} of {len(docs)} crash points ({where}{more}); first: {bad[0][1]['because']}"
            witnesses = bad[0][1]["witnesses"]
        else:
            because = f"all {len(docs)} crash points: {results[0]['because']}" if results else "no crash point"
            witnesses = []
        folded.append({"name": name, "class": results[0]["class"], "verdict": verdict, "count": count,
                       "because": because, "witnesses": witnesses})
    del first_bad
    return folded
