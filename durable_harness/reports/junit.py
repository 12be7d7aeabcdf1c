"""JUnit XML for CI test-result views: one testsuite ``durable-harness``, one testcase per run.

A testcase is named by the scenario id, with the candidate spec as its classname. A run with an
error is an ``<error>`` typed by the error's kind (``harness``, ``candidate``, ``setup``,
``interrupted``); a failing run is a ``<failure>`` typed ``safety`` (if safety failed) or
``liveness``; an unknown run is an ``<error type="unknown">``, because unknown is not green. Each
carries the error, the candidate's exceptions, the "because" lines and witnesses (with their history
file), unfired faults, a determinism difference, the sweep, and the command that reproduces the run.
Seed, verdicts, harness and candidate identity, counters and each fault's status ride along as
properties; faults that were not exercised are listed in ``system-out`` (coverage, not a failure).
A scenario the report's index planned but that has no run is a ``<skipped>`` testcase.

This module does not read files and writes no ``time`` attributes: runs happen on a virtual clock,
and wall-clock durations would make the output differ between equal runs. Text is stripped of
characters XML 1.0 cannot carry, so the document always parses.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any

from ._documents import in_report_order, validate_report, validate_run
from ._facts import ERROR_WORDS, UNTESTED, faults_with, not_run, untested, untested_why

__all__ = ["SUITE", "render_junit", "run_message", "run_text"]

Doc = Mapping[str, Any]
SUITE = "durable-harness"
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def render_junit(runs: Sequence[Doc], index: Doc | None = None) -> str:
    """Render validated run.json documents (and the folder's report.json, when there is one) as a
    JUnit XML document ending with a newline."""
    for i, run in enumerate(runs):
        validate_run(run, source=f"runs[{i}]")
    if index is not None:
        validate_report(index, source="index")
    ordered = in_report_order(runs)
    cases = [_testcase(run) for run in ordered]
    if index is not None:
        cases += [_not_run_case(sid, index) for sid in not_run(ordered, index)]
    totals = {"tests": str(len(cases))}
    for tag, attr in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
        totals[attr] = str(sum(1 for case in cases if case.find(tag) is not None))
    root = ET.Element("testsuites", {"name": SUITE, **totals})
    suite = ET.SubElement(root, "testsuite", {"name": SUITE, **totals})
    suite.extend(cases)
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + body + "\n"


def _testcase(run: Doc) -> ET.Element:
    case = ET.Element("testcase", {"name": _xml(run["scenario"]["id"]), "classname": _xml(run["candidate"]["spec"])})
    case.append(_properties(run))
    if run["error"] is not None:
        kind = str(run["error"]["kind"])
        _outcome(case, "error", kind, f"{ERROR_WORDS[kind]}: {_first_line(run['error']['message'])}", run)
    elif run["verdict"] == "fail":
        cls = "safety" if run["safety"] == "fail" else "liveness"
        _outcome(case, "failure", cls, _message(run, "fail", cls), run)
    elif run["verdict"] == "unknown":
        _outcome(case, "error", "unknown", _message(run, "unknown", None), run)
    unexercised = untested(run)
    if unexercised:
        out = ET.SubElement(case, "system-out")
        out.text = _xml("\n".join(
            f"fault {f['index']} {f['kind']} at {f['at']} was {UNTESTED[f['status']]}: {untested_why(f)} "
            "(coverage, not a failure: not tested)" for f in unexercised))
    return case


def _not_run_case(scenario_id: str, index: Doc) -> ET.Element:
    why = f"interrupted by {index['interrupted_by']}" if index["interrupted_by"] else "no run.json"
    case = ET.Element("testcase", {"name": _xml(scenario_id), "classname": _xml(index["candidate"]["spec"])})
    ET.SubElement(case, "skipped", {"message": _xml(f"not run ({why}); nothing is known about this scenario")})
    return case


def _properties(run: Doc) -> ET.Element:
    props = ET.Element("properties")
    pairs = [
        ("seed", run["seed"]), ("scenario.path", run["scenario"]["path"]),
        ("scenario.covers", run["scenario"]["covers"]), ("verdict", run["verdict"]),
        ("safety", run["safety"]), ("liveness", run["liveness"]), ("exit_code", run["exit_code"]),
        ("harness.version", run["harness"]["version"]), ("harness.commit", run["harness"]["commit"] or ""),
        ("candidate.digest", run["candidate"]["digest"] or ""),
        ("virtual_s", run["timings"]["virtual_s"]), ("history.digest", run["history"]["digest"]),
        *((("clock", run["timings"]["clock"]),) if "clock" in run["timings"] else ()),
        *((f"counter.{name}", value) for name, value in sorted(run["counters"].items())),
        *((f"fault.{fault['index']}.status", fault["status"]) for fault in run["faults"]),
        *([("error.kind", run["error"]["kind"])] if run["error"] is not None else []),
        ("reproduce", run["reproduce"]),
    ]
    for name, value in pairs:
        ET.SubElement(props, "property", {"name": _xml(name), "value": _xml(value)})
    return props


def run_message(run: Doc) -> str:
    """The one-line message of a run that did not pass (what its testcase's failure or error says)."""
    if run["error"] is not None:
        kind = str(run["error"]["kind"])
        return f"{ERROR_WORDS[kind]}: {_first_line(run['error']['message'])}"
    if run["verdict"] == "fail":
        return _message(run, "fail", "safety" if run["safety"] == "fail" else "liveness")
    return _message(run, str(run["verdict"]), None)


def run_text(run: Doc) -> str:
    """Everything a reviewer needs to act on a run, as plain text ending with its reproduce command."""
    return _body(run)


def _message(run: Doc, verdict: str, cls: str | None) -> str:
    """The one-line message: the first checker with this verdict (and class) and its because."""
    for checker in run["checkers"]:
        if checker["verdict"] == verdict and cls in (None, checker["class"]):
            return f"{checker['class']} {verdict}: {checker['name']}: {_first_line(checker['because'])}"
    unfired = [str(f["kind"]) for f in faults_with(run, "unfired")]
    if unfired:
        return f"{verdict}: scheduled faults did not fire: {', '.join(unfired)}"
    det = run["determinism"]
    if det is not None and not det["same"]:
        return f"{verdict}: the same seed gave two different histories"
    return f"{verdict}: safety {run['safety']}, liveness {run['liveness']}"


def _outcome(case: ET.Element, tag: str, kind: str, message: str, run: Doc) -> None:
    element = ET.SubElement(case, tag, {"message": _xml(message), "type": kind})
    element.text = _xml(_body(run))


def _body(run: Doc) -> str:
    lines: list[str] = []
    error = run["error"]
    if error is not None:
        lines += [f"{error['kind']} error ({ERROR_WORDS[error['kind']]}):",
                  *(f"  {line}" for line in str(error["message"]).splitlines())]
        if error["detail"]:
            lines += ["  detail:", *(f"    {line}" for line in str(error["detail"]).splitlines())]
        lines.append("")
    for err in run["candidate_errors"]:
        where = f" at {run['history']['file']} #{err['history_index']}" if err["history_index"] is not None else ""
        lines += [f"candidate raised {err['type']} in {err['method']}{where}: {err['message']}",
                  *(f"  {frame}" for frame in err["frames"]), ""]
    for checker in run["checkers"]:
        if checker["verdict"] != "pass":
            lines += [*_checker_lines(checker, run), ""]
    if error is None:
        for fault in faults_with(run, "unfired"):
            lines.append(f"fault {fault['kind']} at {fault['at']} ({fault['point']}) did not fire: "
                         f"scheduled {fault['scheduled']}, fired {fault['fired']}, {fault['seen']} requests seen "
                         f"on {fault['channel']}")
    lines += _determinism_lines(run)
    if run["sweep"] is not None:
        sweep = run["sweep"]
        lines.append(f"crash-point sweep: {sweep['points']} points, {sweep['passed']} passed; failing: "
                     f"{', '.join(map(str, sweep['failing'])) or 'none'}"
                     + (f"; not reached: {', '.join(map(str, sweep['not_reached']))}" if sweep.get("not_reached") else ""))
    if lines and lines[-1] != "":
        lines.append("")
    lines.append(f"reproduce: {run['reproduce']}")
    return "\n".join(lines)


def _checker_lines(checker: Doc, run: Doc) -> list[str]:
    lines = [f"[{checker['class']}] {checker['name']}: {checker['verdict']} (count {checker['count']})",
             f"  because: {checker['because']}"]
    for w in checker["witnesses"]:
        lines.append(f"  witness {w['file']} #{w['index']} t={float(w['time_s']):.3f}s {w['process']} {w['type']}: "
                     f"{w['summary']}")
    if not checker["witnesses"]:
        report = "no final report (claims is null)" if run["claims"] is None else "the final report (claims)"
        lines.append(f"  judged from the final ground truth (truth) and {report} in run.json")
    return lines


def _determinism_lines(run: Doc) -> list[str]:
    det = run["determinism"]
    if det is None or det["same"]:
        return []
    lines = [f"determinism: the same seed gave two different histories ({det['digests'][0]} / {det['digests'][1]})"]
    if det["entry"] is not None:
        lines += [f"  first difference at entry {det['entry']}; differing paths: {', '.join(det['differs']) or 'none'}",
                  f"  first:  {det['first'] if det['first'] is not None else '<history ended>'}",
                  f"  second: {det['second'] if det['second'] is not None else '<history ended>'}"]
    return [*lines, ""]


def _first_line(value: object) -> str:
    lines = str(value).strip().splitlines()
    return lines[0] if lines else ""


def _xml(value: object) -> str:
    """Text XML 1.0 can carry: forbidden characters become ``\\xNN`` escapes."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))
