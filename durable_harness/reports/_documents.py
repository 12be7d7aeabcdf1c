"""The two documents of a report folder, validated before anything renders them.

``run.json`` (format ``durable-harness/run@2``), one per scenario, in three layers. First the
format: a document of another ``durable-harness/run@N`` is refused with one message (written by an
older or a newer harness; rerun the scenario with its reproduce command). Then the shape, against
the shipped ``run.schema.json``. Then the invariants a schema cannot state, decided by
``durable_harness.harness.verdict`` and nothing else:

* a run with an ``error`` could not be judged: its exit code is 3 and its verdict is not ``pass``;
* a run without one: each class verdict is at least as bad as that class's worst checker, the run
  verdict combines the two class verdicts, and the exit code is ``durable_harness.harness.verdict.exit_code`` of them.

``report.json`` (format ``durable-harness/report@1``), the folder's index written by the command
line: the shipped ``report.schema.json``, then ``completed`` is at most the number of scenarios
planned, an interrupted report is partial, a report that is not partial completed its plan, and a
shard's index is at most the number of shards.

Every problem is reported with its JSON path (``$.checkers[0].verdict``) and the value. This module
does not repair documents, fill in defaults, or judge a run (the checkers did that when the run was
made), and does not compare documents with each other (``_mix`` does). It only refuses documents
that a report could misrepresent.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from durable_harness.harness.verdict import VERDICTS, combine, exit_code

from ._schema import REPORT_SCHEMA, RUN_SCHEMA, Problem, refuse, shape_problems

__all__ = ["REPORT_FORMAT", "RUN_FORMAT", "in_report_order", "run_key", "validate_report", "validate_run"]

RUN_FORMAT = "durable-harness/run@2"
REPORT_FORMAT = "durable-harness/report@1"
_VERSION = int(RUN_FORMAT.rsplit("@", 1)[1])
_OTHER_FORMAT = re.compile(r"durable-harness/run@([0-9]+)")
_RUN_FIX = (
    f"a run.json must follow durable_harness/reports/{RUN_SCHEMA} ({RUN_FORMAT}); fix the engine that wrote it, "
    "or run the scenario again with its reproduce command"
)
_REMEMBERED = 4096  # valid run documents remembered by content, so each renderer's check is cheap
_VALID: OrderedDict[str, None] = OrderedDict()
_REPORT_FIX = (
    f"a report.json must follow durable_harness/reports/{REPORT_SCHEMA} ({REPORT_FORMAT}); fix the command line that wrote it, "
    "or run the scenarios again into a fresh report folder"
)


def run_key(run: Mapping[str, Any]) -> tuple[str, str, int]:
    """The order every report lists runs in: scenario id, then candidate spec, then seed."""
    return (str(run["scenario"]["id"]), str(run["candidate"]["spec"]), int(run["seed"]))


def in_report_order(runs: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """``runs`` sorted by ``run_key``; runs with equal keys by their content, so that the order the
    runs were given in never changes a rendered byte."""
    return sorted(runs, key=lambda run: (run_key(run), json.dumps(run, sort_keys=True)))


def validate_run(doc: object, *, source: str = "run.json") -> None:
    """Raise ``ValueError`` naming ``source``, each bad JSON path and its value, unless ``doc`` is a
    valid run@2 document. ``source`` only labels the message (e.g. ``lost_write/run.json``).

    A document found valid is remembered by a digest of its content (not by identity, so a document
    changed since is checked again): the loader and every renderer check each run they are given,
    and a report of many runs would otherwise spend most of its time re-checking them."""
    key = _content_key(doc)
    if key is not None and key in _VALID:
        _VALID.move_to_end(key)
        return
    if isinstance(doc, Mapping):
        _refuse_other_format(doc, source)
    problems = shape_problems(doc, RUN_SCHEMA)
    if not problems and isinstance(doc, Mapping):
        problems = _run_problems(doc)
    refuse(source, problems, _RUN_FIX)
    if key is not None:
        _VALID[key] = None
        while len(_VALID) > _REMEMBERED:
            _VALID.popitem(last=False)


def _content_key(doc: object) -> str | None:
    try:
        text = json.dumps(doc, sort_keys=True, allow_nan=True, separators=(",", ":"))
    except (TypeError, ValueError):  # not JSON at all: validate it the long way, and remember nothing
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _refuse_other_format(doc: Mapping[str, Any], source: str) -> None:
    found = doc.get("format")
    match = _OTHER_FORMAT.fullmatch(found) if isinstance(found, str) else None
    if match is None or found == RUN_FORMAT:
        return
    reproduce = doc.get("reproduce")
    again = (f"rerun the scenario to rewrite it: {reproduce}" if isinstance(reproduce, str) and reproduce.strip()
             else "rerun the scenario with this harness to rewrite it")
    age = "an older" if int(match.group(1)) < _VERSION else "a newer"
    raise ValueError(f"{source}: written by {age} harness (format {found!r}); these reports read {RUN_FORMAT!r} "
                     f"only, so {again}")


def _run_problems(doc: Mapping[str, Any]) -> list[Problem]:
    error = doc["error"]
    complete = doc.get("complete")
    if complete is not None and complete != (error is None):
        return [("$.complete", f"{complete!r} but error is {'set' if error is not None else 'null'}; a run is "
                               "complete when it went through every phase and was judged, and only then")]
    if error is not None:
        return _error_problems(doc, str(error["kind"]))
    problems: list[Problem] = []
    for cls in ("safety", "liveness"):
        problems.extend(_class_problems(cls, doc[cls], doc["checkers"]))
    safety, liveness, verdict = doc["safety"], doc["liveness"], doc["verdict"]
    combined = combine([safety, liveness])
    if verdict != combined:
        problems.append(("$.verdict", f"{verdict!r} but safety is {safety!r} and liveness is {liveness!r}, "
                                      f"which combine to {combined!r} (fail beats unknown beats pass)"))
    code, expected = doc["exit_code"], exit_code(safety, liveness, False)
    if code == 3:
        problems.append(("$.exit_code", "3 but error is null; exit code 3 means the run could not be judged, "
                                        "and its error must say why"))
    elif code != expected:
        problems.append(("$.exit_code", f"{code!r} but safety {safety!r} and liveness {liveness!r} mean exit code "
                                        f"{expected!r} (0 pass, 1 safety fail, 2 liveness fail or unknown)"))
    return problems


def _error_problems(doc: Mapping[str, Any], kind: str) -> list[Problem]:
    problems: list[Problem] = []
    if doc["exit_code"] != 3:
        problems.append(("$.exit_code", f"{doc['exit_code']!r} but error is set (kind {kind!r}); a run that "
                                        "could not be judged has exit code 3"))
    if doc["verdict"] == "pass":
        problems.append(("$.verdict", f"'pass' but error is set (kind {kind!r}); a run that could not be "
                                      "judged proves nothing: use 'unknown'"))
    return problems


def _class_problems(cls: str, verdict: str, checkers: Sequence[Mapping[str, Any]]) -> list[Problem]:
    for i, checker in enumerate(checkers):
        if checker["class"] == cls and VERDICTS.index(checker["verdict"]) > VERDICTS.index(verdict):
            return [(f"$.{cls}", f"{verdict!r} but checker $.checkers[{i}] ({checker['name']!r}) says "
                                 f"{checker['verdict']!r}; a class verdict is at least its worst checker's")]
    return []


def validate_report(doc: object, *, source: str = "report.json") -> None:
    """Raise ``ValueError`` naming ``source``, each bad JSON path and its value, unless ``doc`` is a
    valid report@1 index."""
    problems = shape_problems(doc, REPORT_SCHEMA)
    if not problems and isinstance(doc, Mapping):
        problems = _report_problems(doc)
    refuse(source, problems, _REPORT_FIX)


def _report_problems(doc: Mapping[str, Any]) -> list[Problem]:
    problems: list[Problem] = []
    planned, completed, partial = len(doc["scenarios"]), doc["completed"], doc["partial"]
    if completed > planned:
        problems.append(("$.completed", f"{completed!r} but only {planned} scenarios were planned"))
    if doc["interrupted_by"] is not None and not partial:
        problems.append(("$.partial", f"False but interrupted_by is {doc['interrupted_by']!r}; "
                                      "an interrupted report is partial"))
    shard = doc.get("shard")
    if shard is not None and shard["index"] > shard["count"]:
        problems.append(("$.shard.index", f"{shard['index']!r} but there are only {shard['count']} shards"))
    if not partial and completed < planned:
        problems.append(("$.partial", f"False but completed is {completed!r} of {planned} planned; "
                                      "a report that did not complete every scenario is partial"))
    return problems
