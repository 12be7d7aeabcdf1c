"""The scenario schema, checked in a third of the time: the same rules, in a shape jsonschema walks faster.

Two rewrites that keep every verdict of the schema as it is:

* a ``$ref`` that stands alone is replaced by what it names (``$defs`` stay, for any other ``$ref``);
* an ``allOf`` whose every rule is ``if: {properties: {kind: {const: K}}}, then: S`` becomes one
  lookup, ``dhByKind: {K: S}``: the rule of the entry's own kind, and no other, is applied. The two
  differ only for an entry whose ``kind`` is missing (every ``then`` applies under ``if``), and
  each such place also has ``required: [kind]``, so that entry is invalid under both.

The loader checks a file with this validator; only a file it refuses is checked again with the
schema as written, whose errors word the message (``_loader``). A test holds the two to the same
verdict on the catalogue and on fuzzed files.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema
from jsonschema import validators

__all__ = ["fast_validator"]

_MAX_INLINE_DEPTH = 16  # a $ref deeper than this (a recursive definition) is left to jsonschema


def _by_kind(validator: Any, rules: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]) -> Iterator[Any]:
    if isinstance(instance, dict) and isinstance(instance.get("kind"), str) and instance["kind"] in rules:
        yield from validator.descend(instance, rules[instance["kind"]])


_Fast = validators.extend(jsonschema.Draft202012Validator, {"dhByKind": _by_kind})


def fast_validator(schema: Mapping[str, Any]) -> Any:
    """A validator of ``schema`` (composed, already checked or trusted) that gives its verdicts faster."""
    defs = schema.get("$defs", {})
    body = {k: _rewrite(v, defs, 0) for k, v in schema.items() if k != "$defs"}
    return _Fast({**body, "$defs": defs})


def _rewrite(node: Any, defs: Mapping[str, Any], depth: int) -> Any:
    if isinstance(node, list):
        return [_rewrite(v, defs, depth) for v in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if len(node) == 1 and isinstance(ref, str) and ref.startswith("#/$defs/") and depth < _MAX_INLINE_DEPTH:
        name = ref[len("#/$defs/"):]
        if name in defs:
            return _rewrite(defs[name], defs, depth + 1)
    out = {k: _rewrite(v, defs, depth) for k, v in node.items()}
    rules = out.get("allOf")
    if isinstance(rules, list) and rules and all(_kind_rule(r) is not None for r in rules):
        by_kind: dict[str, Any] = {}
        for rule in rules:
            kind = _kind_rule(rule)
            if kind in by_kind:
                return out  # two rules for one kind: keep the schema as written
            by_kind[str(kind)] = rule["then"]
        del out["allOf"]
        out["dhByKind"] = by_kind
    return out


def _kind_rule(rule: Any) -> str | None:
    """K, when ``rule`` is exactly ``{if: {properties: {kind: {const: K}}}, then: ...}``."""
    if not isinstance(rule, dict) or set(rule) != {"if", "then"} or not isinstance(rule["if"], dict):
        return None
    cond = rule["if"]
    if set(cond) != {"properties"} or not isinstance(cond["properties"], dict) or set(cond["properties"]) != {"kind"}:
        return None
    kind = cond["properties"]["kind"]
    if not isinstance(kind, dict) or set(kind) != {"const"} or not isinstance(kind["const"], str):
        return None
    return kind["const"]
