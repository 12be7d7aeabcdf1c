"""What the command line prints per run, and the summary that ends a command.

Per run: one line naming the verdict, the scenario, the counters that did not pass and the history
digest; below it, for a run that did not pass, the error (with its kind), the candidate's own
exceptions, each failing checker's because with its first witnesses (naming their history file),
and the reproduce command. At the end (``final_lines``): how many ran and passed, the exit code and
its meaning, the top findings (``durable_harness.reports.findings``, the order every report uses) each with its
first because and reproduce command, and where report.html is.

It formats; it does not print progress (``_progress``) or decide a verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["final_lines", "print_run", "run_lines"]

_TOP = 5

_MARK = {"pass": "PASS", "fail": "FAIL", "unknown": "UNKNOWN"}
_ERROR_KIND = {"harness": "harness error (not the candidate's fault)", "candidate": "the candidate could not be run",
               "setup": "cannot run this scenario",
               "not_applicable": "not applicable against a real service", "interrupted": "interrupted"}


def print_run(doc: Mapping[str, Any]) -> None:
    print("\n".join(run_lines(doc)), flush=True)


def run_lines(doc: Mapping[str, Any]) -> list[str]:
    mark = "ERROR" if doc.get("error") else _MARK[str(doc["verdict"])]
    counters = " ".join(f"{c['name']}={c['count']}" for c in sorted(doc["checkers"], key=lambda c: c["name"])
                        if c["verdict"] != "pass")
    idle = [f for f in doc.get("faults", []) if f.get("status") == "not_exercised"]
    past = [f for f in doc.get("faults", []) if f.get("status") == "not_reached"]
    coverage = f"  not exercised: {', '.join(sorted({f['kind'] for f in idle}))}" if idle else ""
    kinds = sorted({str(f["kind"]) for f in past})
    coverage += (f"  not reached: {len(past)} crash point{'s' if len(past) != 1 else ''}" if kinds == ["crash"] and
                 len(past) > 1 else f"  not reached: {', '.join(kinds)}") if past else ""
    lines = [f"{mark:8} {doc['scenario']['id']:34} {counters}  history {doc['history']['digest'][:16]}{coverage}"]
    if doc["verdict"] == "pass" and not doc.get("error"):
        return lines
    error = doc.get("error")
    if error:
        lines.append(f"         {_ERROR_KIND.get(error['kind'], error['kind'])}: {error['message']}")
    for e in doc.get("candidate_errors", [])[:3]:
        where = f" at {e['frames'][-1]}" if e.get("frames") else ""
        lines.append(f"         the candidate raised {e['type']}: {e['message']} in {e['method']}(){where}")
    for c in doc["checkers"]:
        if c["verdict"] != "pass":
            lines.append(f"         {c['name']}: {c['verdict']}: {c['because']}")
            for w in c["witnesses"][:3]:
                lines.append(f"           witness {w.get('file', 'history.jsonl')} #{w['index']} t={w['time_s']}s: {w['summary']}")
    lines.append(f"         reproduce: {doc['reproduce']}")
    return lines


def final_lines(docs: Sequence[Mapping[str, Any]], what: str, code: int, meaning: str, html: Path | None,
                note: str = "") -> list[str]:
    """The closing summary: counts and exit code, the top findings, the report's path."""
    from durable_harness.reports import findings

    passed = sum(1 for d in docs if d["verdict"] == "pass")
    lines = ["", f"{note}{what}, {passed} passed; exit {code} ({meaning})"]
    found = findings(docs)
    if found:
        lines.append("top findings:")
        for n, finding in enumerate(found[:_TOP], 1):
            names = finding.scenarios
            shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
            what = finding.verdict if finding.cls in ("error", "verdict") else f"{finding.cls} {finding.verdict}"
            first = finding.items[0]
            lines += [f"  {n}. {finding.name} ({what}) in {len(names)} scenario{'s' if len(names) != 1 else ''}: {shown}",
                      f"     {first.scenario}: {first.because}", f"     reproduce: {first.reproduce}"]
        if len(found) > _TOP:
            lines.append(f"  ... and {len(found) - _TOP} more findings in the report")
    cov = _coverage_line(docs)
    if cov:
        lines.append(cov)
    lines.append(f"report: {html}" if html is not None else "report: none written (nothing ran)")
    return lines


def _coverage_line(docs: Sequence[Mapping[str, Any]]) -> str:
    """``coverage: 98/101 (97%) of the scheduled faults and actions took effect; 3 not reached``."""
    from durable_harness.reports._facts import coverage_text, total_coverage

    fired, scheduled = total_coverage(docs)
    if scheduled == 0:
        return ""
    statuses = [f.get("status") for d in docs for f in d.get("faults") or ()]
    untested = [f"{statuses.count(s)} {s.replace('_', ' ')}" for s in ("not_reached", "not_exercised") if s in statuses]
    return (f"coverage: {coverage_text(fired, scheduled)} of the scheduled faults and actions took effect"
            + (f"; {', '.join(untested)} (not tested on this run: the report says why)" if untested else ""))
