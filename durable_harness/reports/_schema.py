"""The JSON Schemas shipped with the package, and how a refused document is reported.

Two schemas ship beside this module (JSON Schema draft 2020-12, unknown keys are errors):
``run.schema.json`` for a scenario's ``run.json`` and ``report.schema.json`` for a report folder's
index, ``report.json``. ``shape_problems`` lists every place a document breaks its schema as
``(JSON path, problem)`` pairs; ``refuse`` turns such pairs into one ``ValueError`` that names the
source, each path with the offending value, and how to fix it.

This module knows nothing of what a run or an index means: the invariants a schema cannot state
live with the documents they belong to (``_documents``). It repairs nothing and fills
in no defaults.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator

__all__ = ["Problem", "REPORT_SCHEMA", "RUN_SCHEMA", "json_path", "load_schema", "refuse", "shape_problems"]

RUN_SCHEMA = "run.schema.json"
REPORT_SCHEMA = "report.schema.json"
_MAX_SHOWN = 8
_MAX_PROBLEM_CHARS = 240

Problem = tuple[str, str]  # (JSON path such as "$.checkers[0].verdict", what is wrong there)


@functools.cache
def load_schema(name: str = RUN_SCHEMA) -> dict[str, Any]:
    """A schema shipped with the package (parsed once)."""
    if name not in (RUN_SCHEMA, REPORT_SCHEMA):
        raise ValueError(f"schema {name!r} is not shipped; use {RUN_SCHEMA!r} or {REPORT_SCHEMA!r}")
    text = resources.files(__package__ or "durable_harness.reports").joinpath(name).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@functools.cache
def _validator(name: str) -> Any:
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(_inline(schema, schema.get("$defs", {})))


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """``node`` with every local ``{"$ref": "#/$defs/x"}`` replaced by its definition: the same
    schema, validated several times faster (no reference lookups). The shipped schemas do not
    recurse, so this ends."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and len(node) == 1:
            return _inline(defs[ref.removeprefix("#/$defs/")], defs)
        return {key: _inline(value, defs) for key, value in node.items() if key != "$defs"}
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    return node


def shape_problems(doc: object, schema: str) -> list[Problem]:
    """Every way ``doc`` breaks ``schema``, sorted and without repeats (a "required" error may
    repeat once per missing key)."""
    return sorted(set(_problems(doc, schema)))


def _problems(doc: object, schema: str) -> Iterable[Problem]:
    for error in _validator(schema).iter_errors(doc):
        path = list(error.absolute_path)
        if error.validator == "required":
            missing = [key for key in error.validator_value if key not in error.instance]
            for key in missing:
                yield json_path([*path, key]), "missing (required)"
        elif error.validator == "additionalProperties" and error.validator_value is False:
            allowed = sorted(error.schema.get("properties", {}))
            for key in sorted(set(error.instance) - set(allowed), key=str):
                yield json_path([*path, key]), f"unexpected key; allowed keys: {', '.join(allowed)}"
        elif error.validator == "const":
            yield json_path(path), f"{error.instance!r} must be {error.validator_value!r}"
        else:
            yield json_path(path), str(error.message)


def refuse(source: str, problems: Sequence[Problem], fix: str) -> None:
    """Raise one ``ValueError`` listing ``problems`` (at most a screenful) under ``source``, ending
    with ``fix``; return quietly when there are none."""
    if not problems:
        return
    shown = [f"  {path}: {_clip(problem)}" for path, problem in problems[:_MAX_SHOWN]]
    if len(problems) > _MAX_SHOWN:
        shown.append(f"  ... and {len(problems) - _MAX_SHOWN} more")
    noun = "problem" if len(problems) == 1 else "problems"
    raise ValueError(f"{source}: {len(problems)} {noun}:\n" + "\n".join(shown) + f"\n{fix}")


def json_path(parts: Sequence[object]) -> str:
    """``["checkers", 0, "verdict"]`` as ``$.checkers[0].verdict``."""
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
