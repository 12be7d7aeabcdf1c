"""Allure results: one test per run (scenario and candidate), for ``allure serve`` and friends.

Two writers share what a result says, so they always agree: the command line writes result files
itself (``write_allure``, for ``--allure DIR``), and the pytest plugin hands the same facts to
allure-pytest (``allure_status``, ``allure_labels``, ``allure_description``, ``attachments``).

* status: ``passed``; ``failed`` for a failing verdict; ``broken`` for an unknown verdict or a run
  that could not be judged (nothing was proven either way);
* labels: suites (``durable-harness`` / candidate / the kinds of fault the scenario schedules), the
  feature (what the scenario covers), the verdicts, the seed, the harness, every counter as
  ``counter.<name>`` and the counters that did not pass as tags;
* steps: one per checker (its verdict, count and because); the duration is the run's scenario time;
* parameters: the candidate and the seed (so each candidate's result has its own history in Allure);
* description: the because lines and the reproduce command (Markdown);
* attachments: the verdict, the because and witnesses, ``history.jsonl``, the timeline (this run's
  ``report.html``), ``run.json`` and the reproduce command.

Result files are named from a digest of the run's identity, and their times come from the report's
index (the report's start), never the clock, so equal input gives equal files. This module writes
only Allure's own file names in the folder it is given (``clean_allure_dir`` removes only those)
and does not run anything or judge anything.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from ._documents import in_report_order, validate_report, validate_run
from ._facts import ERROR_WORDS, untested, untested_why
from ._histories import ReportFiles
from .html import render_html
from .junit import run_message, run_text

__all__ = ["Attachment", "allure_description", "allure_labels", "allure_parameters", "allure_status", "attachments",
           "clean_allure_dir", "write_allure"]

Doc = Mapping[str, Any]
Attachment = tuple[str, bytes, str, str]  # (name, content, MIME type, file extension)
_OURS = ("-result.json", "-container.json")
_EXTRA = ("environment.properties", "categories.json")


def allure_status(run: Doc) -> str:
    """``passed``, ``failed`` or ``broken`` (unknown, or not judged)."""
    if run["error"] is None and run["verdict"] == "pass":
        return "passed"
    return "failed" if run["error"] is None and run["verdict"] == "fail" else "broken"


def _family(run: Doc) -> str:
    """What groups scenarios in Allure's tree: the kinds of fault and action they schedule (a sweep
    is its own family), so that the runs of one kind sit together."""
    if run.get("sweep"):
        return "crash-point sweep"
    kinds = sorted({str(f["kind"]) for f in run.get("faults", [])})
    return ", ".join(kinds) if kinds else "no faults"


def allure_labels(run: Doc) -> list[tuple[str, str]]:
    """(name, value) labels of a run's test, in a fixed order."""
    bad = [str(c["name"]) for c in run["checkers"] if c["verdict"] != "pass"]
    labels = [
        ("parentSuite", "durable-harness"), ("suite", str(run["candidate"]["spec"])),
        ("subSuite", _family(run)), ("feature", str(run["scenario"]["covers"])), ("story", str(run["scenario"]["id"])),
        ("severity", "critical" if run["safety"] == "fail" else "normal"),
        ("verdict", str(run["verdict"])), ("safety", str(run["safety"])), ("liveness", str(run["liveness"])),
        ("exit_code", str(run["exit_code"])), ("seed", str(run["seed"])),
        ("harness", f"{run['harness']['version']} {run['harness']['commit'] or ''}".strip()),
        *((f"counter.{name}", str(value)) for name, value in sorted(run["counters"].items())),
        *(("tag", f"{name}={run['counters'].get(name, '?')}") for name in sorted(bad)),
    ]
    if run["error"] is not None:
        labels.append(("tag", f"error:{run['error']['kind']}"))
    return labels


def allure_parameters(run: Doc) -> list[tuple[str, str]]:
    """(name, value) parameters, written as allure-pytest writes them (a string quoted, a number not)."""
    return [("candidate", repr(str(run["candidate"]["spec"]))), ("seed", str(int(run["seed"])))]


def allure_description(run: Doc) -> str:
    """Markdown: the verdict, each checker that did not pass with its because, the reproduce command."""
    lines = [f"**{run['scenario']['title']}** — verdict **{run['verdict']}** (safety {run['safety']}, "
             f"liveness {run['liveness']}), exit code {run['exit_code']}.", ""]
    if run["error"] is not None:
        lines += [f"Error ({run['error']['kind']}): {ERROR_WORDS[run['error']['kind']]}.", ""]
    for checker in run["checkers"]:
        if checker["verdict"] != "pass":
            lines.append(f"- `{checker['name']}` ({checker['class']}) {checker['verdict']}: {checker['because']}")
    unexercised = untested(run)
    if unexercised:
        lines += ["", "Not tested: " + "; ".join(f"`{f['kind']}` at `{f['at']}`: {untested_why(f)}" for f in unexercised)]
    return "\n".join([*lines, "", f"Reproduce: `{run['reproduce']}`"])


def attachments(run: Doc, files: ReportFiles | None = None) -> list[Attachment]:
    """What a run's test carries: verdict, because and witnesses, history, timeline, run.json, reproduce."""
    found: list[Attachment] = [
        ("verdict", _verdict_text(run).encode(), "text/plain", "txt"),
        ("because and witnesses", run_text(run).encode(), "text/plain", "txt"),
    ]
    if files is not None:
        history = files.raw(run, str(run["history"]["file"]))
        if history is not None:
            found.append(("history.jsonl", history, "text/plain", "txt"))
    found += [
        ("timeline.html", render_html([run], None, files).encode(), "text/html", "html"),
        ("run.json", (json.dumps(run, indent=2, sort_keys=True) + "\n").encode(), "application/json", "json"),
        ("reproduce", (str(run["reproduce"]) + "\n").encode(), "text/plain", "txt"),
    ]
    return found


def _verdict_text(run: Doc) -> str:
    lines = [f"{run['scenario']['id']}: {run['verdict']} (safety {run['safety']}, liveness {run['liveness']}), "
             f"exit code {run['exit_code']}; candidate {run['candidate']['spec']}, seed {run['seed']}"]
    if allure_status(run) != "passed":
        lines.append(run_message(run))
    lines += [f"  {c['name']:28} {c['class']:9} {c['verdict']:8} {c['count']}" for c in run["checkers"]]
    return "\n".join(lines) + "\n"


def clean_allure_dir(allure_dir: str | os.PathLike[str]) -> None:
    """Create ``allure_dir`` and remove the Allure results of an earlier run from it (only files with
    Allure's own names), so one folder holds one run's results."""
    root = Path(allure_dir)
    root.mkdir(parents=True, exist_ok=True)
    for child in root.iterdir():
        name = child.name
        if child.is_file() and (name.endswith(_OURS) or "-attachment." in name or name in _EXTRA):
            child.unlink()


def write_allure(allure_dir: str | os.PathLike[str], runs: Sequence[Doc], index: Doc | None = None,
                 files: ReportFiles | None = None) -> list[Path]:
    """Write one ``*-result.json`` per run (with its attachments) and ``environment.properties``
    into ``allure_dir``; return the result files' paths."""
    for i, run in enumerate(runs):
        validate_run(run, source=f"runs[{i}]")
    if index is not None:
        validate_report(index, source="index")
    root = Path(allure_dir)
    root.mkdir(parents=True, exist_ok=True)
    start = _millis(index["started_at"]) if index is not None else 0
    written = []
    for run in in_report_order(runs):
        uid = _uuid(run)
        refs = []
        for n, (name, content, mime, ext) in enumerate(attachments(run, files)):
            source = f"{_uuid(run, f'attachment {n}')}-attachment.{ext}"
            (root / source).write_bytes(content)
            refs.append({"name": name, "source": source, "type": mime})
        result = _result(run, uid, refs, start)
        target = root / f"{uid}-result.json"
        target.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        written.append(target)
    env = _environment(runs, index)
    (root / "environment.properties").write_text("".join(f"{k}={v}\n" for k, v in env), encoding="utf-8")
    return written


def _result(run: Doc, uid: str, refs: list[dict[str, str]], start: int) -> dict[str, Any]:
    full_name = f"durable-harness.{run['candidate']['spec']}.{run['scenario']['id']}"
    params = [{"name": name, "value": value} for name, value in allure_parameters(run)]
    status = allure_status(run)
    details = {} if status == "passed" else {"message": run_message(run), "trace": run_text(run)}
    return {
        "uuid": uid, "name": str(run["scenario"]["id"]), "fullName": full_name,
        "historyId": _digest(full_name + json.dumps(params)), "testCaseId": _digest(full_name),
        "status": status, "statusDetails": details, "stage": "finished",
        "description": allure_description(run), "start": start, "stop": start + _scenario_ms(run),
        "labels": [{"name": name, "value": value} for name, value in allure_labels(run)],
        "parameters": params, "attachments": refs, "links": [], "steps": _steps(run, start),
    }


def _scenario_ms(run: Doc) -> int:
    """A result's duration: the run's own time (scenario seconds), never the wall clock's."""
    return int(round(float(run.get("timings", {}).get("virtual_s", 0.0)) * 1000))


def _steps(run: Doc, start: int) -> list[dict[str, Any]]:
    """One step per checker: its verdict, its count and its because line."""
    status = {"pass": "passed", "fail": "failed"}
    return [{"name": f"{c['name']}: {c['verdict']} ({c['count']})", "status": status.get(str(c["verdict"]), "broken"),
             "statusDetails": {} if c["verdict"] == "pass" else {"message": str(c["because"])}, "stage": "finished",
             "start": start, "stop": start, "steps": [], "attachments": [], "parameters": []}
            for c in run["checkers"]]


def _environment(runs: Sequence[Doc], index: Doc | None) -> list[tuple[str, str]]:
    source = index if index is not None else (runs[0] if runs else None)
    if source is None:
        return []
    return [("candidate", str(source["candidate"]["spec"])), ("candidate.digest", str(source["candidate"]["digest"])),
            ("harness.version", str(source["harness"]["version"])), ("harness.commit", str(source["harness"]["commit"]))]


def _millis(utc: str) -> int:
    return int(datetime.fromisoformat(utc.replace("Z", "+00:00")).timestamp() * 1000)


def _digest(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def _uuid(run: Doc, what: str = "result") -> str:
    h = hashlib.sha256(json.dumps([str(run["scenario"]["id"]), str(run["candidate"]["spec"]), int(run["seed"]),
                                   str(run["history"]["digest"]), what]).encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"
