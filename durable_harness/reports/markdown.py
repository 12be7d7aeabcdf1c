"""The Markdown summary of a report, for reviewers and CI job pages (e.g. a GitHub step summary).

Layout, top to bottom:

* when the index says the report is partial, a banner: how many scenarios ran, what interrupted
  them, which did not run;
* a header: the overall verdict and exit code with its meaning, the candidate (spec and short
  digest), the harness (version and short commit), the date, the seeds, the scenario counts;
* the top findings (``_findings``), one line each, at most eight: with the header, the page's first
  30 lines say what a reviewer must act on, as GitHub's job summary shows them;
* the verdict matrix: one row per run, its status, every counter, safety counters before liveness
  ones (marked only when its checker did not pass, so a count within a scenario's bound reads
  plain), and its faults (fired, not exercised, unfired);
* the scenarios the index planned that have no run.json;
* coverage: every fault of every run (passing ones too) that was not exercised, with its channel;
* one section per run that did not pass (``_markdown_sections``).

Output is a pure function of the documents and the index: runs are sorted, nothing reads the wall
clock, so equal input gives equal bytes. This module does not read files, refuse mixed reports (the
loader and ``write_outputs`` do) or render HTML (``html`` does); it formats documents that it
validates first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from durable_harness.harness.verdict import EXIT_MEANING

from ._documents import in_report_order, validate_report, validate_run
from ._facts import (UNTESTED, candidates, counter_classes, coverage_of, coverage_text, harnesses, not_run, overall, seeds,
                     short, status, total_coverage, untested, untested_why)
from ._findings import Finding, findings
from ._markdown_sections import MARK, run_section, status_label
from ._markdown_text import cell, code, row, text

__all__ = ["render_summary"]

Doc = Mapping[str, Any]
_STATUSES = ("pass", "fail", "unknown", "error")
_MAX_BANNER_NAMES = 12
_MAX_FINDINGS = 8  # with the header, the top of the page stays under 30 lines: GitHub shows it first
_MAX_FINDING_SCENARIOS = 4
_CLASS_ORDER = ("safety", "liveness", "other")


def render_summary(runs: Sequence[Doc], index: Doc | None = None) -> str:
    """Render validated run.json documents (and the folder's report.json, when there is one) as one
    Markdown page ending with a newline."""
    for i, run in enumerate(runs):
        validate_run(run, source=f"runs[{i}]")
    if index is not None:
        validate_report(index, source="index")
    ordered = in_report_order(runs)
    missing = not_run(ordered, index)
    lines = [*_banner(index, missing), *_header(ordered, index, missing)]
    top = findings(ordered)
    if top:
        lines += ["", *_top_findings(top)]
    if ordered:
        lines += ["", *_matrix(ordered)]
    if missing:
        lines += ["", *_not_run(missing)]
    if ordered:
        lines += ["", *_coverage(ordered)]
    for run in ordered:
        if status(run) != "pass":
            lines += ["", *run_section(run)]
    return "\n".join(lines) + "\n"


def _banner(index: Doc | None, missing: Sequence[str]) -> list[str]:
    if index is None or not index["partial"]:
        return []
    planned = len(index["scenarios"])
    why = f"interrupted by {index['interrupted_by']}" if index["interrupted_by"] else "stopped before the end"
    names = ", ".join(code(name) for name in missing[:_MAX_BANNER_NAMES])
    if len(missing) > _MAX_BANNER_NAMES:
        names += f" and {len(missing) - _MAX_BANNER_NAMES} more"
    shards = index.get("missing_shards") or []
    if shards:  # a merge without every shard: their scenarios were never seen, so they cannot be named
        why = f"shard{'s' if len(shards) > 1 else ''} {', '.join(shards)} not given to the merge"
        gone = f"not run: every scenario of shard{'s' if len(shards) > 1 else ''} {', '.join(shards)}"
        return [f"> **PARTIAL REPORT: {planned - len(missing)} of the {planned} scenarios of the shards given ran; {why}; "
                f"{gone}{'; and ' + names if names else ''}**", ""]
    return [f"> **PARTIAL REPORT: {planned - len(missing)} of {planned} scenarios ran; {why}; "
            f"not run: {names or 'none'}**", ""]


def _header(runs: Sequence[Doc], index: Doc | None, missing: Sequence[str]) -> list[str]:
    verdict, exit_code = overall(runs, index)
    # Exit code 2 is a liveness failure or an unknown: the mark tells the two apart.
    mark = MARK[{0: "pass", 1: "fail", 2: "fail" if verdict == "fail" else "unknown", 3: "error"}[exit_code]]
    lines = [f"## {mark} durable-harness: {verdict}, exit code {exit_code} — {EXIT_MEANING[exit_code]}", ""]
    if not runs:
        lines += ["Nothing was run, so nothing passed.", ""]
    lines += [f"- Scenarios: {_scenario_counts(runs, index, missing)}", _who(runs, index), _harness(runs, index)]
    if index is None:
        lines.append("- Started: date unknown (no report.json)")
    else:
        finished = f"finished {index['finished_at']}" if index["finished_at"] else "not finished"
        lines.append(f"- Started: {index['started_at']}, {finished}")
    lines.append("- Seeds: " + (", ".join(str(seed) for seed in seeds(runs)) or "none"))
    if index is not None:
        lines.append(f"- Command: {code(index['command'])}")
        lines += _real_services(index)
    return lines


def _real_services(index: Doc) -> list[str]:
    """``--service``: what was real, and what did not run for it."""
    real = index.get("real_services") or {}
    if not real:
        return []
    lines = ["- Real services: " + ", ".join(f"{text(name)} at {code(url)}" for name, url in sorted(real.items()))]
    skipped = index.get("not_applicable") or {}
    if skipped:
        lines.append(f"- Not applicable against them ({len(skipped)}, not run): "
                     + "; ".join(f"{code(sid)} ({text(why)})" for sid, why in sorted(skipped.items())))
    return lines


def _top_findings(found: Sequence[Finding]) -> list[str]:
    """One line per finding (the most serious first): where it holds, its first because, and the
    command that reproduces its first run. The sections below hold the rest."""
    lines = ["### Top findings", ""]
    for n, finding in enumerate(found[:_MAX_FINDINGS], 1):
        first = finding.items[0]
        names = finding.scenarios
        shown = ", ".join(code(name) for name in names[:_MAX_FINDING_SCENARIOS])
        if len(names) > _MAX_FINDING_SCENARIOS:
            shown += f" and {len(names) - _MAX_FINDING_SCENARIOS} more"
        what = finding.verdict if finding.cls in ("error", "verdict") else f"{finding.cls} {finding.verdict}"
        noun = "scenario" if len(names) == 1 else "scenarios"
        lines.append(f"{n}. {MARK[finding.verdict]} **{code(finding.name)}** ({what}) in {len(names)} {noun}: {shown} "
                     f"— {text(first.because)}; reproduce: {code(first.reproduce)}")
    if len(found) > _MAX_FINDINGS:
        lines.append(f"{_MAX_FINDINGS + 1}. … and {len(found) - _MAX_FINDINGS} more findings in the sections below")
    return lines


def _scenario_counts(runs: Sequence[Doc], index: Doc | None, missing: Sequence[str]) -> str:
    statuses = [status(run) for run in runs]
    counts = ", ".join(f"{statuses.count(s)} {s}" for s in _STATUSES)
    if index is not None:
        planned = len(index["scenarios"])
        tail = f"; {len(missing)} not run" if missing else ""
        return f"{planned} planned, {len(runs)} ran — {counts}{tail}"
    scenarios = len({str(run["scenario"]["id"]) for run in runs})
    runs_note = f" ({len(runs)} runs)" if len(runs) != scenarios else ""
    return f"{scenarios}{runs_note} — {counts}"


def _who(runs: Sequence[Doc], index: Doc | None) -> str:
    found = candidates(runs, index)
    label = "Candidate" if len(found) <= 1 else "Candidates"
    named = [f"{code(spec)}, digest {code(short(digest))}" if digest else f"{code(spec)}, no digest"
             for spec, digest in found]
    return f"- {label}: " + ("; ".join(named) or "none recorded")


def _harness(runs: Sequence[Doc], index: Doc | None) -> str:
    found = harnesses(runs, index)
    label = "Harness" if len(found) <= 1 else "Harnesses"
    named = [f"{text(version)}, commit {code(short(commit))}" if commit else f"{text(version)}, not a git checkout"
             for version, commit in found]
    return f"- {label}: " + ("; ".join(named) or "none recorded")


def _several_candidates(runs: Sequence[Doc]) -> bool:
    return len({str(r["candidate"]["spec"]) for r in runs}) > 1


def _matrix(runs: Sequence[Doc]) -> list[str]:
    classes = counter_classes(runs)
    names = sorted(classes, key=lambda name: _CLASS_ORDER.index(classes[name]))  # stable: keeps the table's order
    several = _several_candidates(runs)
    header = ["scenario", *(["candidate"] if several else []), "verdict", *names, "faults", "coverage"]
    align = ["---", *(["---"] if several else []), "---", *("---:" for _ in names), "---", "---:"]
    lines = [row(cell(h) for h in header), row(align)]
    for run in runs:
        cells = [cell(run["scenario"]["id"]), *([cell(run["candidate"]["spec"])] if several else [])]
        cells.append(status_label(run))
        verdicts = {str(c["name"]): str(c["verdict"]) for c in run["checkers"]}
        for name in names:
            value = run["counters"].get(name)
            judged = verdicts.get(name, "fail" if value else "pass")
            mark = MARK[judged] if judged != "pass" else ""
            cells.append("–" if value is None else f"{value} {mark}".strip())
        cells.append(_faults_cell(run))
        cells.append(coverage_text(*coverage_of(run)))
        lines.append(row(cells))
    return lines


def _faults_cell(run: Doc) -> str:
    """Faults by kind and status, in scenario order; a sweep's 82 crashes read ``crash ×82``."""
    grouped: dict[tuple[str, str], list[int]] = {}
    for fault in run["faults"]:
        fired, scheduled = grouped.setdefault((str(fault["kind"]), str(fault["status"])), [0, 0])
        grouped[(str(fault["kind"]), str(fault["status"]))] = [fired + int(fault["fired"]),
                                                              scheduled + int(fault["scheduled"])]
    named = []
    for (kind, fault_status), (fired, scheduled) in grouped.items():
        if fault_status == "fired":
            named.append(f"{cell(kind)} ×{fired}")
        elif fault_status in UNTESTED:
            named.append(f"{cell(kind)}: {UNTESTED[fault_status]}")
        else:
            named.append(f"{cell(kind)}: unfired ({fired} of {scheduled})")
    return ", ".join(named) or "–"


def _not_run(missing: Sequence[str]) -> list[str]:
    noun = "scenario has" if len(missing) == 1 else "scenarios have"
    return [
        "### ⏹️ Not run",
        "",
        f"{len(missing)} planned {noun} no run.json, so nothing is known about "
        f"{'it' if len(missing) == 1 else 'them'}: {', '.join(code(name) for name in missing)}.",
    ]


def _coverage(runs: Sequence[Doc]) -> list[str]:
    lines = ["### Coverage", ""]
    unexercised = [(run, fault) for run in runs for fault in untested(run)]
    if not any(run["faults"] for run in runs):
        return [*lines, "No scenario scheduled a fault."]
    fired, scheduled = total_coverage(runs)
    strict = any((run.get("coverage") or {}).get("strict") for run in runs)
    lines += [f"**{coverage_text(fired, scheduled)}** of the scheduled faults and actions took effect"
              + (" (--strict-coverage: anything less is unknown)." if strict else "."), ""]
    if not unexercised:
        return [*lines, "Every fault met the request it waits for."]
    lines += [
        "Faults the candidate's design never met: *not exercised*, it never used the channel the fault targets (a "
        "control plane that polls never opens the event stream); *not reached*, it used the channel but never made "
        "(again) the request the fault waits for (it read its post back after an error instead of sending the "
        "update again; no request came while the condition held; a person's moment never came; a sweep's crash "
        "point past the end of its real-time run). This is not a failure (the liveness checkers say whether the job "
        "still got done), but that behaviour was not tested on this design either.",
        "",
    ]
    several = _several_candidates(runs)
    lines += [row(["scenario", *(["candidate"] if several else []), "fault", "why"]),
              row(["---", *(["---"] if several else []), "---", "---"])]
    for run, fault in unexercised:
        fault_cell = (f"{cell(fault['kind'])} (faults[{fault['index']}] at {code(fault['at'], in_table=True)}): "
                      f"{UNTESTED[fault['status']]}")
        scenario = cell(run["scenario"]["id"]) + (f" — {status_label(run)}" if run["error"] is not None else "")
        lines.append(row([scenario, *([cell(run["candidate"]["spec"])] if several else []),
                          fault_cell, cell(untested_why(fault))]))
    return lines
