"""The Markdown summary of a set of runs, for CI job pages (e.g. a GitHub step summary).

Layout: a headline (how many scenarios, how many pass / fail / unknown, which candidates), a
verdict matrix (one row per run: the verdict, then every counter; counters whose checker did not pass are marked,
so a count within a scenario's bound reads plain), then one
section per run that did not pass, with each failing or unknown checker's "because", its witnesses,
faults that never fired, and the command that reproduces the run. Output is a pure function of the
input documents: runs are sorted, nothing reads the wall clock, so equal input gives equal bytes.

This module does not read files, decide exit codes, or render HTML; it only formats validated
run.json documents. Text from the documents is escaped so a ``|`` or ``<`` cannot break the page.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ._schema import run_key, validate_run, worst

__all__ = ["render_summary"]

_MARK = {"pass": "✅", "fail": "❌", "unknown": "❔", "error": "⚠️"}
# Counters in the order the design's acceptance table lists them; others follow alphabetically.
_COUNTER_ORDER = (
    "duplicate_drafts", "duplicate_media", "unauthorized_calls", "wrong_checkpoint_advances",
    "leftover_unknowns", "ledger_mismatches", "resubmitted_tasks", "stuck_jobs", "wrong_outcomes",
)


def render_summary(runs: Sequence[Mapping[str, Any]]) -> str:
    """Render validated run.json documents as one Markdown page (ends with a newline)."""
    for i, run in enumerate(runs):
        validate_run(run, source=f"runs[{i}]")
    ordered = sorted(runs, key=run_key)
    lines = _headline(ordered)
    if ordered:
        lines += ["", *_matrix(ordered)]
    for run in ordered:
        if _status(run) != "pass":
            lines += ["", *_details(run)]
    return "\n".join(lines) + "\n"


def _status(run: Mapping[str, Any]) -> str:
    """``error`` when the harness could not run, else the run verdict."""
    return "error" if run["exit_code"] == 3 else str(run["verdict"])


def _headline(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    if not runs:
        return ["## durable-harness: no runs", "", "Nothing was run, so nothing passed."]
    scenarios = sorted({str(r["scenario"]["id"]) for r in runs})
    verdicts = [str(r["verdict"]) for r in runs]
    counts = ", ".join(f"{verdicts.count(v)} {v}" for v in ("pass", "fail", "unknown"))
    noun = "scenario" if len(scenarios) == 1 else "scenarios"
    runs_note = f" ({len(runs)} runs)" if len(runs) != len(scenarios) else ""
    head = f"## {_MARK[worst(verdicts)]} durable-harness: {len(scenarios)} {noun}{runs_note} — {counts}"
    candidates = sorted({str(r["candidate"]) for r in runs})
    label = "Candidate" if len(candidates) == 1 else "Candidates"
    lines = [head, "", f"{label}: " + ", ".join(_code(c) for c in candidates) + "."]
    broken = sum(1 for r in runs if r["exit_code"] == 3)
    if broken:
        lines[-1] += f" {broken} could not run (exit code 3)."
    return lines


def _counter_names(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    present = {str(name) for r in runs for name in r["counters"]}
    known = [name for name in _COUNTER_ORDER if name in present]
    return known + sorted(present - set(known))


def _matrix(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    names = _counter_names(runs)
    several = len({r["candidate"] for r in runs}) > 1
    header = ["scenario", *(["candidate"] if several else []), "verdict", *names]
    align = ["---", *(["---"] if several else []), "---", *("---:" for _ in names)]
    lines = [_row(_cell(h) for h in header), _row(align)]
    for run in runs:
        status = _status(run)
        cells = [_cell(run["scenario"]["id"]), *([_cell(run["candidate"])] if several else [])]
        cells.append(f"{_MARK[status]} {status}")
        verdicts = {str(c["name"]): str(c["verdict"]) for c in run["checkers"]}
        for name in names:
            value = run["counters"].get(name)
            mark = _MARK.get(verdicts.get(name, "fail" if value else "pass"), "") if verdicts.get(name, "pass") != "pass" else ""
            cells.append("–" if value is None else f"{value} {mark}".strip() if (value or mark) else "0")
        lines.append(_row(cells))
    return lines


def _details(run: Mapping[str, Any]) -> list[str]:
    scenario, status = run["scenario"], _status(run)
    lines = [
        f"### {_MARK[status]} {_code(scenario['id'])}: {status}, candidate {_code(run['candidate'])}, "
        f"seed {run['seed']}",
        "",
        f"{_text(scenario['title'])} — covers {_code(scenario['covers'])}, scenario file "
        f"{_code(scenario['path'])}.",
        f"Safety {run['safety']}, liveness {run['liveness']}, exit code {run['exit_code']}; outcome "
        f"expected {_code(run['outcome']['expected'])}, claimed {_code(run['outcome']['claimed'])}.",
    ]
    if run["error"] is not None:
        lines += ["", "The harness could not run:", "", *_fenced(str(run["error"]), "text")]
    bad = [c for c in run["checkers"] if c["verdict"] != "pass"]
    for checker in bad:
        lines += ["", *_checker(checker)]
    if not bad and run["error"] is None:
        lines += ["", "No checker failed or was unknown; the faults below explain the verdict."]
    # A run that could not start fired nothing; listing its faults would only repeat that.
    unfired = [f for f in run["faults"] if f["fired"] < f["scheduled"] and run["exit_code"] != 3]
    if unfired:
        lines += ["", "Faults that did not fire as scheduled (a fault that never fired makes a run unknown):", ""]
        lines += [
            f"- {_code(f['kind'])} at {_code(f['at'])} ({_text(f['point'])}): "
            f"scheduled {f['scheduled']}, fired {f['fired']}"
            for f in unfired
        ]
    lines += ["", "Reproduce:", "", *_fenced(str(run["reproduce"]), "sh")]
    return lines


def _checker(checker: Mapping[str, Any]) -> list[str]:
    verdict = str(checker["verdict"])
    lines = [
        f"#### {_MARK[verdict]} {_code(checker['name'])} ({checker['class']}): {verdict}, "
        f"count {checker['count']}",
        "",
        f"Because: {_text(checker['because'])}",
        "",
    ]
    witnesses = checker["witnesses"]
    if not witnesses:
        return [*lines, "No witnesses recorded."]
    lines += [_row(["#", "time (s)", "process", "type", "summary"]), _row(["---:", "---:", "---", "---", "---"])]
    for w in witnesses:
        cells = [str(w["index"]), f"{float(w['time_s']):.3f}", _cell(w["process"]), _cell(w["type"]),
                 _cell(w["summary"])]
        lines.append(_row(cells))
    return lines


def _row(cells: Any) -> str:
    return "| " + " | ".join(cells) + " |"


def _text(value: object) -> str:
    """One line of prose: whitespace runs collapsed, HTML metacharacters escaped."""
    text = " ".join(str(value).split())
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cell(value: object) -> str:
    """A table cell: prose escaping, and ``|`` escaped so it cannot end the cell."""
    return _text(value).replace("|", "\\|")


def _code(value: object) -> str:
    """An inline code span that survives backticks in the value; ``None`` reads as *none*."""
    if value is None:
        return "*none*"
    text = " ".join(str(value).split())
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _fenced(text: str, lang: str) -> list[str]:
    """A fenced code block longer than any backtick run inside ``text``."""
    fence = "`" * max(3, max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    return [f"{fence}{lang}", *text.splitlines(), fence]
