"""A sweep as one scenario of the catalogue: ``sweep: crash_points`` in a scenario file.

The scenario's workload is swept (a crash at every I/O point, before and after each request; see
``_sweep``) and the point runs are folded into one run document: each checker's count is summed
over the points and its verdict is the worst of them (``durable_harness.harness.verdict``); its "because" and
witnesses are those of the first point where it did not pass, and each witness names that point's
history file (``points/<id>/history.jsonl``). The first failing point's reproduce command becomes
the scenario's. The scenario's own ``history.jsonl`` is the clean run's (also when the sweep ends
in an error of the harness after its clean run); every point's run.json and history are kept
under ``points/``.

It deliberately does not invent verdicts: every number in the folded document is a point's.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from durable_harness.harness._coverage import merge_coverage, strict_coverage
from durable_harness.harness._errors import HarnessError
from durable_harness.harness._run import RunInterrupted, harness_error_doc
from durable_harness.harness._rundoc import HISTORY_FILE, write_run
from durable_harness.harness._sweep import SweepError, SweepPoint, run_point, sweep_points
from durable_harness.harness._sweep_fork import applies, forked_sweep
from durable_harness.harness.scenario import Scenario
from durable_harness.harness.verdict import Judgement, combine

__all__ = ["run_sweep_scenario"]

POINTS_DIR = "points"


def run_sweep_scenario(scenario: Scenario, candidate: str, seed: int | None, out_dir: Path | None) -> dict[str, Any]:
    cut_short: list[dict[str, Any]] = []  # once the clean run is in: what the sweep says if it stops there
    try:
        return _run_sweep(scenario, candidate, seed, out_dir, cut_short)
    except RunInterrupted as stop:  # a signal during the clean run or a point: the sweep's own partial document
        doc = cut_short[-1] if cut_short else _clean_run_cut_short(scenario, stop.doc)
        if out_dir is not None:
            write_run(out_dir, doc)
        raise RunInterrupted(doc) from None


def _clean_run_cut_short(scenario: Scenario, partial: dict[str, Any]) -> dict[str, Any]:
    """The clean run's partial document as the sweep's: the sweep's id, never the point's (a report
    would take a point's id for a stale run of another report)."""
    doc = dict(partial)
    doc["scenario"] = {**doc.get("scenario", {}), "id": scenario.id, "title": scenario.title,
                       "path": str(scenario.source)}
    doc.update(Judgement.unjudged({
        "kind": "interrupted", "detail": None,
        "message": "the sweep did not finish: it was interrupted (SIGINT or SIGTERM) during its clean run"}).fields())
    return doc


def _run_sweep(scenario: Scenario, candidate: str, seed: int | None, out_dir: Path | None,
               cut_short: list[dict[str, Any]]) -> dict[str, Any]:
    base = dataclasses.replace(scenario, sweep=None)
    seed = scenario.default_seed if seed is None else seed
    points_dir = out_dir / POINTS_DIR if out_dir is not None else None

    def so_far(clean: dict[str, Any], points: int) -> dict[str, Any]:
        cut_short.append(unfinished(scenario, clean, points))
        return cut_short[-1]

    if applies(base, candidate):  # each point forked from the clean run at its I/O point
        try:
            clean, runs = forked_sweep(base, candidate, seed, out_dir, points_dir, so_far)
        except HarnessError as err:  # the sweep itself went wrong: the harness's error, exit 3
            return _sweep_error(scenario, candidate, seed, out_dir, err)
    else:  # each point run from scratch
        try:
            points, clean = sweep_points(base, candidate, seed, out_dir)
        except HarnessError as err:
            return _sweep_error(scenario, candidate, seed, out_dir, err)
        pending = so_far(clean, len(points))
        if out_dir is not None:  # until the fold replaces it: a sweep cut short is never the clean run's green
            write_run(out_dir, pending)
        runs = [(p, run_point(base, p, candidate, seed, points_dir)) for p in points]
    doc = _fold(scenario, clean, runs)
    if out_dir is not None:
        write_run(out_dir, doc)
    return doc


def _sweep_error(scenario: Scenario, candidate: str, seed: int, out_dir: Path | None,
                 err: HarnessError) -> dict[str, Any]:
    """The sweep's error of the harness (exit 3), beside the clean run's history when the clean run
    got that far (what whoever reads the error needs first)."""
    kept = err.history if isinstance(err, SweepError) else None
    return harness_error_doc(scenario, candidate, seed, out_dir, f"the crash-point sweep: {err.message}", kept)


def unfinished(scenario: Scenario, clean: dict[str, Any], points: int) -> dict[str, Any]:
    """What the scenario's run.json says while its points run: not judged yet (what is left on disk
    if the harness is killed meanwhile)."""
    doc = dict(clean)
    doc["scenario"] = {**clean["scenario"], "id": scenario.id, "title": scenario.title, "path": str(scenario.source)}
    doc.update(checkers=[], counters={}, **Judgement.unjudged({"kind": "interrupted", "detail": None, "message": (
        f"the sweep did not finish: its clean run ran, and its {points} crash points had not all run when "
        "the harness stopped")}).fields())
    return doc


def _fold(scenario: Scenario, clean: dict[str, Any], runs: list[tuple[SweepPoint, dict[str, Any]]]) -> dict[str, Any]:
    docs = [d for _, d in runs]
    first_bad = next(((p, d) for p, d in runs if d["verdict"] != "pass"), None)
    doc = dict(clean)
    doc["scenario"] = {**clean["scenario"], "id": scenario.id, "title": scenario.title, "path": str(scenario.source)}
    if not docs:  # a clean run without a single request has no point to crash at: nothing was tested
        if clean.get("error"):  # the clean run could not be judged (the candidate's error): that is why
            return doc
        doc.update(Judgement.unjudged({"kind": "harness", "detail": None, "message": (
            "the sweep found no I/O point to crash at (the clean run made no request)")}).fields())
        return doc
    doc["checkers"] = _fold_checkers(runs)
    doc["counters"] = {c["name"]: c["count"] for c in doc["checkers"]}
    doc["faults"] = [f for d in docs for f in d["faults"]]
    doc["coverage"] = {**merge_coverage([d.get("coverage") for d in docs]), "strict": strict_coverage()}
    doc.update(Judgement.fold(docs).fields())
    doc["candidate_errors"] = [e for d in docs for e in d.get("candidate_errors", [])][:50]
    doc["sweep"] = {"points": len(docs), "passed": sum(1 for d in docs if d["verdict"] == "pass"),
                    "failing": [p.label for p, d in runs if d["verdict"] != "pass"]}
    unreached = [p.label for p, d in runs if any(f["status"] == "not_reached" for f in d["faults"])]
    if unreached:  # real time: points past the end of their own run, clean runs judged as such
        doc["sweep"]["not_reached"] = unreached
    doc["timings"] = {key: sum(d["timings"][key] for d in docs) for key in ("virtual_s", "steps", "requests", "restarts")}
    doc["timings"]["virtual_s"] = round(doc["timings"]["virtual_s"], 6)
    if first_bad is not None:
        doc["reproduce"] = first_bad[1]["reproduce"]
    return doc


def _fold_checkers(runs: list[tuple[SweepPoint, dict[str, Any]]]) -> list[dict[str, Any]]:
    names = list(dict.fromkeys(c["name"] for _, d in runs for c in d["checkers"]))
    folded = []
    for name in names:
        results = [(p, d, c) for p, d in runs for c in d["checkers"] if c["name"] == name]
        bad = [(p, d, c) for p, d, c in results if c["verdict"] != "pass"]
        if bad:
            where = ", ".join(p.label for p, _, _ in bad[:8]) + (f" and {len(bad) - 8} more" if len(bad) > 8 else "")
            _, point_doc, first = bad[0]
            because = f"{len(bad)} of {len(runs)} crash points ({where}); first: {first['because']}"
            folder = f"{POINTS_DIR}/{point_doc['scenario']['id']}/{HISTORY_FILE}"
            witnesses = [{**w, "file": folder} for w in first["witnesses"]]
        else:
            because = f"all {len(runs)} crash points: {results[0][2]['because']}"
            witnesses = []
        first_seen = results[0][2]
        folded.append({"name": name, "class": first_seen["class"], "verdict": combine(c["verdict"] for *_, c in results),
                       "count": sum(int(c["count"]) for *_, c in results), "because": because, "witnesses": witnesses,
                       **({"rank": first_seen["rank"]} if "rank" in first_seen else {})})
    return folded
