"""The Markdown section of one run that did not pass: everything a reviewer needs to act on it.

In order: the heading (status, candidate, seed), the scenario and its verdicts and outcome; the
error, its kind in words; the exceptions the candidate's own code raised (type, message, its own
frames); each failing or unknown checker with its "because" and witnesses, every witness naming its
history file and entry (``history.jsonl #84``), or, with no witnesses, what the verdict was judged
from instead; faults that did not fire; for a determinism failure, the first differing history
entry of each run in full and the paths that differ; the sweep's points; the reproduce command.

This module renders one validated document; it does not choose which runs get a section
(``markdown`` does) and does not shorten what a reviewer needs verbatim (JSON lines, frames).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from durable_harness.harness.verdict import EXIT_MEANING

from ._facts import ERROR_WORDS, faults_with, short, status
from ._markdown_text import cell, code, fenced, row, text

__all__ = ["MARK", "run_section", "status_label"]

Doc = Mapping[str, Any]
MARK = {"pass": "✅", "fail": "❌", "unknown": "❔", "error": "⚠️"}


def status_label(run: Doc) -> str:
    """``❌ fail``, or for a run with an error ``⚠️ error (harness)``."""
    return f"{MARK[status(run)]} {_status_words(run)}"


def _status_words(run: Doc) -> str:
    st = status(run)
    return f"error ({run['error']['kind']})" if st == "error" else st


def run_section(run: Doc) -> list[str]:
    """The lines of ``run``'s section, from its ``###`` heading to its reproduce command."""
    scenario, outcome, exit_ = run["scenario"], run["outcome"], int(run["exit_code"])
    expected = ("whatever the world shows (`from_world`)" if outcome["expected"] == "from_world"
                else code(outcome["expected"]))
    lines = [
        f"### {MARK[status(run)]} {code(scenario['id'])}: {_status_words(run)}, "
        f"candidate {code(run['candidate']['spec'])}, seed {run['seed']}",
        "",
        f"{text(scenario['title'])} — covers {code(scenario['covers'])}, scenario file {code(scenario['path'])}.",
        f"Safety {run['safety']}, liveness {run['liveness']}; exit code {exit_}: {EXIT_MEANING[exit_]}.",
        f"Outcome: expected {expected}, truth {code(outcome['truth'])}, claimed {code(outcome['claimed'])}.",
    ]
    lines += _error(run) + _candidate_errors(run)
    bad = [c for c in run["checkers"] if c["verdict"] != "pass"]
    for checker in bad:
        lines += ["", *_checker(checker, run)]
    if not bad and run["error"] is None:
        lines += ["", "No checker ran, so nothing was proven: a run is green only when its checkers pass."
                  if not run["checkers"] else
                  f"Every checker passed, yet safety is {run['safety']} and liveness is {run['liveness']}; "
                  "what follows explains why."]
    lines += _unfired(run) + _determinism(run) + _sweep(run)
    return [*lines, "", "Reproduce:", "", *fenced(str(run["reproduce"]), "sh")]


def _error(run: Doc) -> list[str]:
    error = run["error"]
    if error is None:
        return []
    lines = ["", f"**Error ({error['kind']})**: {ERROR_WORDS[error['kind']]}.", "", *fenced(error["message"], "text")]
    if error["detail"] is not None:
        lines += ["", "Detail:", "", *fenced(error["detail"], "text")]
    return lines


def _candidate_errors(run: Doc) -> list[str]:
    errors = run["candidate_errors"]
    if not errors:
        return []
    n = len(errors)
    lines = ["", f"The candidate's own code raised {n} exception{'s' if n != 1 else ''} from control-API calls "
                 "(only its own frames are shown):"]
    history = run["history"]["file"]
    for err in errors:
        entry = err["history_index"]
        where = f"at {code(f'{history} #{entry}')}" if entry is not None else "at no history entry"
        trace = ["Traceback (the candidate's own frames, most recent call last):",
                 *(f"  {frame}" for frame in err["frames"]), f"{err['type']}: {err['message']}"]
        lines += ["", f"{code(err['method'])} raised {code(err['type'])} {where}, "
                      f"t={float(err['time_s']):.3f} s:", "", *fenced("\n".join(trace), "text")]
    return lines


def _checker(checker: Doc, run: Doc) -> list[str]:
    verdict = str(checker["verdict"])
    lines = [
        f"#### {MARK[verdict]} {code(checker['name'])} ({checker['class']}): {verdict}, count {checker['count']}",
        "",
        f"Because: {text(checker['because'])}",
        "",
    ]
    witnesses = checker["witnesses"]
    if not witnesses:
        return [*lines, _judged_from(run)]
    lines += [row(["witness", "time (s)", "process", "type", "summary"]), row(["---", "---:", "---", "---", "---"])]
    for w in witnesses:
        lines.append(row([code(f"{w['file']} #{w['index']}", in_table=True), f"{float(w['time_s']):.3f}",
                          cell(w["process"]), cell(w["type"]), cell(w["summary"])]))
    return lines


def _judged_from(run: Doc) -> str:
    report = ("; the candidate gave no final report (`claims` is null in run.json)" if run["claims"] is None
              else " and the candidate's final report (`claims` in run.json)")
    return ("No history entry witnesses this verdict: it was judged from the run's final state, the world's final "
            f"ground truth (`truth` in run.json){report}.")


def _unfired(run: Doc) -> list[str]:
    # A run that could not be judged says why in its error; listing its faults would only repeat that.
    unfired = faults_with(run, "unfired") if run["error"] is None else []
    if not unfired:
        return []
    lines = ["", "Faults that did not fire: the candidate used the channel, but the trigger was never reached, "
                 "so the run proves nothing about them (unknown):", ""]
    return lines + [
        f"- {code(f['kind'])} (faults[{f['index']}]) at {code(f['at'])} ({text(f['point'])}) on "
        f"{code(f['channel'])}: scheduled {f['scheduled']}, fired {f['fired']}, {f['seen']} matching "
        f"request{'s' if f['seen'] != 1 else ''} seen"
        for f in unfired
    ]


def _determinism(run: Doc) -> list[str]:
    det = run["determinism"]
    if det is None or det["same"]:
        return []
    first, second = det["digests"]
    lines = ["", f"**Determinism**: the same seed gave two different histories ({code(short(first))} and "
                 f"{code(short(second))})."]
    entry = det["entry"]
    if entry is None:
        return [*lines, "No differing entry was recorded."]
    paths = ", ".join(code(path) for path in det["differs"]) or "none recorded"
    lines[-1] += f" The first difference is entry {entry}; differing paths: {paths}."
    for side, line in (("First", det["first"]), ("Second", det["second"])):
        if line is None:
            lines += ["", f"{side} run: no entry {entry} (its history ended before it)."]
        else:
            lines += ["", f"{side} run, entry {entry}:", "", *fenced(line, "json")]
    return lines


def _sweep(run: Doc) -> list[str]:
    sweep = run["sweep"]
    if sweep is None:
        return []
    failing = ", ".join(code(label) for label in sweep["failing"]) or "none"
    unreached = ", ".join(code(label) for label in sweep.get("not_reached", []))
    past = f"; not reached (past the end of their own run, in real time): {unreached}" if unreached else ""
    return ["", f"**Crash-point sweep**: {sweep['points']} points, {sweep['passed']} passed; failing: {failing}{past}."]
