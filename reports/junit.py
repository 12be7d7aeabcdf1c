"""JUnit XML for CI test-result views: one testsuite ``durable-harness``, one testcase per run.

A testcase is named by the scenario id, with the candidate as its classname. A run whose harness
could not start (exit code 3) is an ``<error type="harness">``; a failing run is a ``<failure>`` typed
``safety`` (if any safety checker failed) or ``liveness``; an unknown run is an ``<error
type="unknown">``, because unknown is not green. Each carries the "because" lines, the witnesses and
the command that reproduces the run. Seed, verdicts and counters ride along as testcase properties.

This module does not read files and writes no ``time`` attributes: runs happen on a virtual clock,
and wall-clock durations would make the output differ between equal runs. Text is stripped of
characters XML 1.0 cannot carry, so the document always parses.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any

from ._schema import run_key, validate_run

__all__ = ["SUITE", "render_junit"]

SUITE = "durable-harness"
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def render_junit(runs: Sequence[Mapping[str, Any]]) -> str:
    """Render validated run.json documents as a JUnit XML document (ends with a newline)."""
    for i, run in enumerate(runs):
        validate_run(run, source=f"runs[{i}]")
    ordered = sorted(runs, key=run_key)
    cases = [_testcase(run) for run in ordered]
    failures = sum(1 for case in cases if case.find("failure") is not None)
    errors = sum(1 for case in cases if case.find("error") is not None)
    totals = {"tests": str(len(cases)), "failures": str(failures), "errors": str(errors), "skipped": "0"}
    root = ET.Element("testsuites", {"name": SUITE, **totals})
    suite = ET.SubElement(root, "testsuite", {"name": SUITE, **totals})
    suite.extend(cases)
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + body + "\n"


def _testcase(run: Mapping[str, Any]) -> ET.Element:
    case = ET.Element("testcase", {"name": _xml(run["scenario"]["id"]), "classname": _xml(run["candidate"])})
    case.append(_properties(run))
    if run["exit_code"] == 3:
        _outcome(case, "error", "harness", f"the harness could not run: {_first_line(run['error'])}", run)
    elif run["verdict"] == "fail":
        kind = "safety" if run["safety"] == "fail" else "liveness"
        _outcome(case, "failure", kind, _message(run, "fail", kind), run)
    elif run["verdict"] == "unknown":
        _outcome(case, "error", "unknown", _message(run, "unknown", None), run)
    return case


def _properties(run: Mapping[str, Any]) -> ET.Element:
    props = ET.Element("properties")
    pairs = [
        ("seed", run["seed"]), ("scenario.path", run["scenario"]["path"]),
        ("scenario.covers", run["scenario"]["covers"]), ("verdict", run["verdict"]),
        ("safety", run["safety"]), ("liveness", run["liveness"]), ("exit_code", run["exit_code"]),
        ("virtual_s", run["timings"]["virtual_s"]), ("history.digest", run["history"]["digest"]),
        *((f"counter.{name}", value) for name, value in sorted(run["counters"].items())),
        ("reproduce", run["reproduce"]),
    ]
    for name, value in pairs:
        ET.SubElement(props, "property", {"name": _xml(name), "value": _xml(value)})
    return props


def _message(run: Mapping[str, Any], verdict: str, cls: str | None) -> str:
    """The one-line message: the first checker with this verdict (and class) and its because."""
    for checker in run["checkers"]:
        if checker["verdict"] == verdict and cls in (None, checker["class"]):
            return f"{checker['class']} {verdict}: {checker['name']}: {_first_line(checker['because'])}"
    unfired = [f["kind"] for f in run["faults"] if f["fired"] < f["scheduled"]]
    if unfired:
        return f"{verdict}: scheduled faults did not fire: {', '.join(map(str, unfired))}"
    return f"{verdict}: safety {run['safety']}, liveness {run['liveness']}"


def _outcome(case: ET.Element, tag: str, kind: str, message: str, run: Mapping[str, Any]) -> None:
    element = ET.SubElement(case, tag, {"message": _xml(message), "type": kind})
    element.text = _xml(_body(run))


def _body(run: Mapping[str, Any]) -> str:
    lines: list[str] = []
    if run["error"] is not None:
        lines += ["harness error:", *(f"  {line}" for line in str(run["error"]).splitlines()), ""]
    for checker in run["checkers"]:
        if checker["verdict"] == "pass":
            continue
        lines.append(f"[{checker['class']}] {checker['name']}: {checker['verdict']} (count {checker['count']})")
        lines.append(f"  because: {checker['because']}")
        for w in checker["witnesses"]:
            lines.append(f"  witness #{w['index']} t={float(w['time_s']):.3f}s {w['process']} {w['type']}: "
                         f"{w['summary']}")
        lines.append("")
    for fault in run["faults"]:
        if fault["fired"] < fault["scheduled"] and run["exit_code"] != 3:
            lines.append(f"fault {fault['kind']} at {fault['at']} ({fault['point']}) did not fire: "
                         f"scheduled {fault['scheduled']}, fired {fault['fired']}")
    if lines and lines[-1] != "":
        lines.append("")
    lines.append(f"reproduce: {run['reproduce']}")
    return "\n".join(lines)


def _first_line(value: object) -> str:
    lines = str(value).strip().splitlines()
    return lines[0] if lines else ""


def _xml(value: object) -> str:
    """Text XML 1.0 can carry: forbidden characters become ``\\xNN`` escapes."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))
