"""Validate one ``run.json`` document before anything is rendered from it.

Two layers: the shape, checked against ``run.schema.json`` (JSON Schema draft 2020-12, shipped
beside this module; unknown keys are errors), then the few invariants a schema cannot say: the run
verdict is at least as bad as the safety and liveness verdicts, each class verdict is at least as
bad as its worst checker (fail beats unknown beats pass), and the exit code agrees with the
verdicts. Every problem is reported with its JSON path (``$.checkers[0].verdict``) and the value.

This module does not repair documents, fill in defaults, or judge a run: checkers did that when the
run was made. It only refuses documents that a report could misrepresent.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator

__all__ = ["FORMAT", "SCHEMA_FILE", "VERDICTS", "load_schema", "run_key", "validate_run", "worst"]

FORMAT = "durable-harness/run@1"
SCHEMA_FILE = "run.schema.json"
VERDICTS = ("pass", "unknown", "fail")  # in order of badness: fail beats unknown beats pass
_MAX_SHOWN = 8
_MAX_PROBLEM_CHARS = 240
_FIX = (
    f"a run.json must follow reports/{SCHEMA_FILE} ({FORMAT}); fix the engine that wrote it, "
    "or run the scenario again with its reproduce command"
)


def worst(verdicts: Iterable[str]) -> str:
    """Combine verdicts: fail beats unknown beats pass; no verdicts at all is a pass."""
    return max(verdicts, key=VERDICTS.index, default="pass")


def run_key(run: Mapping[str, Any]) -> tuple[str, str, int]:
    """The order every report lists runs in: scenario id, then candidate, then seed."""
    return (str(run["scenario"]["id"]), str(run["candidate"]), int(run["seed"]))


@functools.cache
def load_schema() -> dict[str, Any]:
    """The run.json schema shipped with the package (parsed once)."""
    text = resources.files(__package__ or "reports").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@functools.cache
def _validator() -> Any:
    schema = load_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def validate_run(doc: object, *, source: str = "run.json") -> None:
    """Raise ``ValueError`` naming ``source``, each bad JSON path and its value, unless ``doc`` is a
    valid run.json document. ``source`` only labels the message (e.g. ``lost_write/run.json``)."""
    problems = sorted(set(_shape_problems(doc)))  # a "required" error may repeat per missing key
    if not problems and isinstance(doc, Mapping):
        problems = _invariant_problems(doc)
    if not problems:
        return
    shown = [f"  {path}: {_clip(problem)}" for path, problem in problems[:_MAX_SHOWN]]
    if len(problems) > _MAX_SHOWN:
        shown.append(f"  ... and {len(problems) - _MAX_SHOWN} more")
    noun = "problem" if len(problems) == 1 else "problems"
    raise ValueError(f"{source}: {len(problems)} {noun}:\n" + "\n".join(shown) + f"\n{_FIX}")


def _shape_problems(doc: object) -> Iterable[tuple[str, str]]:
    for error in _validator().iter_errors(doc):
        path = list(error.absolute_path)
        if error.validator == "required":
            missing = [key for key in error.validator_value if key not in error.instance]
            for key in missing:
                yield _json_path([*path, key]), "missing (required)"
        elif error.validator == "additionalProperties" and error.validator_value is False:
            allowed = sorted(error.schema.get("properties", {}))
            for key in sorted(set(error.instance) - set(allowed), key=str):
                yield _json_path([*path, key]), f"unexpected key; allowed keys: {', '.join(allowed)}"
        elif error.validator == "const":
            yield _json_path(path), f"{error.instance!r} must be {error.validator_value!r}"
        else:
            yield _json_path(path), str(error.message)


def _invariant_problems(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    verdict, safety, liveness = doc["verdict"], doc["safety"], doc["liveness"]
    floor = worst([safety, liveness])
    if VERDICTS.index(verdict) < VERDICTS.index(floor):
        problems.append(("$.verdict", f"{verdict!r} but safety is {safety!r} and liveness is {liveness!r}; "
                                      f"the run verdict must be at least {floor!r}"))
    if verdict == "fail" and "fail" not in (safety, liveness):
        problems.append(("$.verdict", "'fail' but neither safety nor liveness is 'fail'"))
    for cls in ("safety", "liveness"):
        problems.extend(_class_problems(cls, doc[cls], doc["checkers"]))
    problems.extend(_exit_problems(doc))
    return problems


def _class_problems(cls: str, verdict: str, checkers: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    for i, checker in enumerate(checkers):
        if checker["class"] == cls and VERDICTS.index(checker["verdict"]) > VERDICTS.index(verdict):
            return [(f"$.{cls}", f"{verdict!r} but checker $.checkers[{i}] ({checker['name']!r}) says "
                                 f"{checker['verdict']!r}; a class verdict is its worst checker's")]
    return []


def _exit_problems(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    code, verdict = doc["exit_code"], doc["verdict"]
    if code == 3:
        if verdict == "pass":
            return [("$.verdict", "'pass' but exit_code is 3 (the harness could not run); use 'unknown'")]
        return []
    expected = 0 if verdict == "pass" else 1 if doc["safety"] == "fail" else 2
    if code != expected:
        return [("$.exit_code", f"{code!r} but verdict {verdict!r} and safety {doc['safety']!r} "
                                f"mean exit code {expected!r} (0 pass, 1 safety, 2 liveness/unknown)")]
    return []


def _json_path(parts: Sequence[object]) -> str:
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and part.isidentifier():
            out += f".{part}"
        else:
            out += f"[{part!r}]"
    return out


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_PROBLEM_CHARS else text[: _MAX_PROBLEM_CHARS - 1] + "…"
