"""What the HTML report shows, as plain values for its template: the header, the findings, the
matrix, the coverage, one section per run, and the timelines' data.

Everything a reviewer reads is decided here, from validated documents and the histories beside
them; the template only lays it out and the script only draws and filters. Anchors are made from
positions (``s-3``, ``tl-3-0``), never from scenario ids, so any id is safe in a page. A run's
timelines are its own history and, for a sweep, the histories its witnesses point into (at most
``MAX_TIMELINES`` per run); a witness links to its entry in the timeline of its file. Every run that
did not pass gets its timelines; passing runs get theirs while they add up to at most
``PASSING_ENTRIES`` entries (a sweep of 80 passing points would otherwise outweigh its findings), and
a left-out timeline says so and where its history is.

This module does not escape text (the template engine does), read files (``ReportFiles``
does) or judge anything (the runs carry their verdicts; ``_findings`` orders them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from durable_harness.harness.verdict import EXIT_MEANING

from ._documents import in_report_order
from ._effects import side_effects
from ._facts import (ERROR_WORDS, UNTESTED, candidates, counter_classes, coverage_of, coverage_text, harnesses, not_run,
                     overall, seeds, short, status, total_coverage, untested, untested_why)
from ._findings import findings
from ._histories import ReportFiles
from ._timeline import timeline_data

__all__ = ["MAX_TIMELINES", "PASSING_ENTRIES", "page_model"]

Doc = Mapping[str, Any]
MAX_TIMELINES = 4
PASSING_ENTRIES = 6_000
_CLASSES = ("safety", "liveness", "other")
_STATUSES = ("pass", "fail", "unknown", "error")


def page_model(runs: Sequence[Doc], index: Doc | None, files: ReportFiles) -> dict[str, Any]:
    """The template's values and the timelines' data (``model["timelines"]``, keyed by anchor)."""
    ordered = in_report_order(runs)
    anchors = {id(run): f"s-{n}" for n, run in enumerate(ordered)}
    timelines: dict[str, Any] = {}
    budget = [PASSING_ENTRIES]  # entries passing runs' timelines may still take
    sections = [_section(run, anchors[id(run)], files, timelines, budget) for run in ordered]
    links = {id(run): section["witness_links"] for run, section in zip(ordered, sections)}
    return {
        "header": _header(ordered, index),
        "findings": _findings(ordered, anchors, links),
        "matrix": _matrix(ordered, anchors),
        "coverage": _coverage(ordered, anchors),
        "coverage_total": coverage_text(*total_coverage(ordered)) if any(run["faults"] for run in ordered) else "",
        "coverage_strict": any((run.get("coverage") or {}).get("strict") for run in ordered),
        "not_run": not_run(ordered, index),
        "scenarios": sections,
        "counters": list(counter_classes(ordered)),
        "timelines": timelines,
    }


def _header(runs: Sequence[Doc], index: Doc | None) -> dict[str, Any]:
    verdict, code = overall(runs, index)
    statuses = [status(run) for run in runs]
    missing = not_run(runs, index)
    partial = None
    if index is not None and index["partial"]:
        planned = len(index["scenarios"])
        why = f"interrupted by {index['interrupted_by']}" if index["interrupted_by"] else "stopped before the end"
        partial = f"{planned - len(missing)} of {planned} scenarios ran; {why}"
        shards = index.get("missing_shards") or []
        if shards:  # a merge without every shard: their scenarios were never seen
            partial = (f"{planned - len(missing)} of the {planned} scenarios of the shards given ran; not run: every "
                       f"scenario of shard{'s' if len(shards) > 1 else ''} {', '.join(shards)}, not given to the merge")
    return {
        "verdict": verdict, "exit_code": code, "meaning": EXIT_MEANING[code],
        "tone": {0: "pass", 1: "fail", 2: "fail" if verdict == "fail" else "unknown", 3: "error"}[code],
        "candidates": [{"spec": spec, "digest": short(digest)} for spec, digest in candidates(runs, index)],
        "harnesses": [{"version": v, "commit": short(c)} for v, c in harnesses(runs, index)],
        "started": index["started_at"] if index else None,
        "finished": index["finished_at"] if index else None,
        "command": index["command"] if index else None,
        "real_services": sorted((index.get("real_services") or {}).items()) if index else [],
        "not_applicable": sorted((index.get("not_applicable") or {}).items()) if index else [],
        "seeds": seeds(runs),
        "planned": len(index["scenarios"]) if index else None,
        "ran": len(runs),
        "counts": [(s, statuses.count(s)) for s in _STATUSES],
        "partial": partial,
    }


def _findings(runs: Sequence[Doc], anchors: Mapping[int, str],
              links: Mapping[int, Mapping[tuple[str, int], str]]) -> list[dict[str, Any]]:
    shown = []
    for finding in findings(runs):
        items = [{
            "scenario": item.scenario, "anchor": anchors[id(item.run)], "because": item.because,
            "count": item.count, "reproduce": item.reproduce, "verdict": item.verdict,
            "witnesses": [_witness(w, links[id(item.run)]) for w in item.witnesses],
        } for item in finding.items]
        shown.append({"name": finding.name, "cls": finding.cls, "verdict": finding.verdict, "where": items,
                      "scenarios": " ".join(finding.scenarios)})
    return shown


def _witness(w: Mapping[str, Any], links: Mapping[tuple[str, int], str]) -> dict[str, Any]:
    return {"label": f"{w['file']} #{w['index']}", "time": f"{float(w['time_s']):.3f}", "process": w["process"],
            "type": w["type"], "summary": w["summary"], "index": int(w["index"]),
            "timeline": links.get((str(w["file"]), int(w["index"])))}


def _matrix(runs: Sequence[Doc], anchors: Mapping[int, str]) -> dict[str, Any]:
    classes = counter_classes(runs)
    groups = [(cls, [name for name in classes if classes[name] == cls]) for cls in _CLASSES]
    groups = [(cls, names) for cls, names in groups if names]
    rows = []
    for run in runs:
        verdicts = {str(c["name"]): str(c["verdict"]) for c in run["checkers"]}
        cells = []
        for _cls, names in groups:
            for name in names:
                value = run["counters"].get(name)
                judged = verdicts.get(name, "fail" if value else "pass")
                cells.append({"name": name, "value": "–" if value is None else str(value),
                              "verdict": judged if value is not None else "none"})
        bad = sorted(name for name, v in verdicts.items() if v != "pass")
        rows.append({"scenario": run["scenario"]["id"], "anchor": anchors[id(run)], "title": run["scenario"]["title"],
                     "candidate": run["candidate"]["spec"], "status": status(run), "bad": " ".join(bad),
                     "cells": cells, "faults": _fault_summary(run), "coverage": coverage_text(*coverage_of(run))})
    return {"groups": groups, "rows": rows, "several": len({r["candidate"]["spec"] for r in runs}) > 1}


def _fault_summary(run: Doc) -> list[dict[str, Any]]:
    grouped: dict[tuple[str, str], list[int]] = {}
    for fault in run["faults"]:
        key = (str(fault["kind"]), str(fault["status"]))
        fired, scheduled = grouped.get(key, [0, 0])
        grouped[key] = [fired + int(fault["fired"]), scheduled + int(fault["scheduled"])]
    shown = []
    for (kind, fault_status), (fired, scheduled) in grouped.items():
        label = f"{kind} ×{fired}" if fault_status == "fired" else f"{kind}: {UNTESTED[fault_status]}" \
            if fault_status in UNTESTED else f"{kind}: unfired ({fired} of {scheduled})"
        shown.append({"kind": kind, "status": fault_status, "label": label})
    return shown


def _coverage(runs: Sequence[Doc], anchors: Mapping[int, str]) -> list[dict[str, Any]]:
    return [{"scenario": run["scenario"]["id"], "anchor": anchors[id(run)], "kind": f["kind"], "index": f["index"],
             "at": f["at"], "channel": f["channel"], "status": UNTESTED[f["status"]], "why": untested_why(f)}
            for run in runs for f in untested(run)]


def _section(run: Doc, anchor: str, files: ReportFiles, timelines: dict[str, Any],
             budget: list[int]) -> dict[str, Any]:
    own = str(run["history"]["file"])
    paths = [own]
    for checker in run["checkers"]:
        for w in checker["witnesses"]:
            if str(w["file"]) not in paths:
                paths.append(str(w["file"]))
    shown, links = [], {}
    for n, file in enumerate(paths[:MAX_TIMELINES]):
        tl_id = f"tl-{anchor[2:]}-{n}"
        marked = {int(w["index"]) for c in run["checkers"] for w in c["witnesses"] if str(w["file"]) == file}
        entries = files.entries(run, file)
        label = ("history" if run["sweep"] is None else "the clean run's history") if file == own else \
            f"the history of crash point {_point(file)}"
        omitted = entries is not None and status(run) == "pass" and len(entries) > budget[0]
        if entries is not None and status(run) == "pass" and not omitted:
            budget[0] -= len(entries)
        shown.append({"id": tl_id, "file": file, "label": label, "missing": entries is None, "omitted": omitted,
                      "entries": 0 if entries is None else len(entries),
                      "recorded": run["history"]["entries"] if file == own else None})
        if entries is not None and not omitted:
            timelines[tl_id] = timeline_data(entries, witnesses=marked)
            links.update({(file, i): tl_id for i in marked})
    effects_from, truth = _effects_source(run, paths, files)
    # A passing run whose timeline was left out is not read again just to name who created what.
    linked = not (status(run) == "pass" and all(t["omitted"] for t in shown if t["file"] == effects_from))
    checkers = sorted(run["checkers"], key=lambda c: (c["verdict"] == "pass", _CLASSES.index(str(c["class"]))
                                                      if c["class"] in _CLASSES else 2, str(c["name"])))
    return {
        "id": run["scenario"]["id"], "anchor": anchor, "status": status(run), "run": run, "faults": _fault_summary(run),
        "open": status(run) != "pass", "bad": " ".join(sorted(str(c["name"]) for c in run["checkers"]
                                                              if c["verdict"] != "pass")),
        "error_words": ERROR_WORDS[run["error"]["kind"]] if run["error"] is not None else None,
        "checkers": [{**c, "witnesses": [_witness(w, links) for w in c["witnesses"]]} for c in checkers],
        "effects": side_effects(truth, files.entries(run, effects_from) if linked else None),
        "effects_linked": linked,
        "effects_from": "this run" if effects_from == own and run["sweep"] is None else
                        "the clean run" if effects_from == own else f"crash point {_point(effects_from)}",
        "effects_timeline": next((t["id"] for t in shown
                                  if t["file"] == effects_from and not (t["missing"] or t["omitted"])), None),
        "timelines": shown, "witness_links": links,
    }


def _point(file: str) -> str:
    """``points/<id>/history.jsonl`` -> ``<id>``."""
    parts = file.split("/")
    return parts[-2] if len(parts) >= 2 else file


def _effects_source(run: Doc, paths: Sequence[str], files: ReportFiles) -> tuple[str, Mapping[str, Any]]:
    """Whose objects the side-effect picture shows: the run's own, or for a sweep, those of the first
    crash point a witness names (the clean run's truth would show nothing amiss)."""
    own = paths[0]
    if run["sweep"] is None or len(paths) < 2:
        return own, run["truth"]
    folder = paths[1].rsplit("/", 1)[0]
    point = files.document(run, f"{folder}/run.json")
    if point is None or not isinstance(point.get("truth"), Mapping):
        return own, run["truth"]
    return paths[1], point["truth"]
