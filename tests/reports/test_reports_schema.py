"""validate_run: the shipped run@2 schema accepts every kind of run and names the path and value it
refuses; run@1 documents are refused with one message; the verdict invariants follow durable_harness.harness.verdict."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from _run_docs import (
    build_run, claims_null, errored, failing, nondeterministic, not_exercised, raised, swept, swept_in_real_time,
    unknown,
)
from jsonschema import Draft202012Validator

from durable_harness.reports import validate_run
from durable_harness.reports._schema import RUN_SCHEMA, load_schema

Doc = dict[str, Any]


def test_shipped_schema_is_a_valid_draft_2020_12_schema() -> None:
    schema = load_schema(RUN_SCHEMA)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == "urn:durable-harness:schema:run@2"
    Draft202012Validator.check_schema(schema)


def _objects_in(schema: Any) -> list[dict[str, Any]]:
    if isinstance(schema, list):
        return [o for item in schema for o in _objects_in(item)]
    if not isinstance(schema, dict):
        return []
    found = [schema] if "properties" in schema else []
    return found + [o for value in schema.values() for o in _objects_in(value)]


def test_every_object_in_the_schema_refuses_unknown_keys() -> None:
    objects = _objects_in(load_schema(RUN_SCHEMA))
    assert len(objects) >= 12
    for obj in objects:
        assert obj.get("additionalProperties") is False, sorted(obj["properties"])


KINDS: list[tuple[str, Callable[[Doc], Doc]]] = [
    ("pass", lambda d: d), ("fail", failing), ("unknown", unknown), ("claims-null", claims_null),
    ("not-exercised", not_exercised), ("raised", raised), ("nondeterministic", nondeterministic),
    ("sweep", swept), ("sweep-in-real-time", swept_in_real_time),
    *((f"error-{kind}", lambda d, kind=kind: errored(d, kind, detail="Traceback ...")) for kind in
      ("harness", "candidate", "setup", "interrupted")),
]


@pytest.mark.parametrize("kind", [k[1] for k in KINDS], ids=[k[0] for k in KINDS])
def test_accepts_every_kind_of_run(kind: Callable[[Doc], Doc]) -> None:
    validate_run(kind(build_run("lost_write")))


def test_accepts_no_digest_no_commit_no_checkers_no_faults() -> None:
    doc = build_run("bare", digest=None, commit=None)
    doc.update(checkers=[], faults=[], counters={})
    validate_run(doc)


def test_a_run_at_1_document_is_refused_with_one_message_and_its_reproduce_command() -> None:
    old = {"format": "durable-harness/run@1", "candidate": "reference", "error": "boom",
           "reproduce": "durable-harness run --candidate reference --scenario durable_harness/scenarios/x.yaml --seed 7"}
    with pytest.raises(ValueError) as info:
        validate_run(old, source="x/run.json")
    assert str(info.value) == (
        "x/run.json: written by an older harness (format 'durable-harness/run@1'); these reports read "
        "'durable-harness/run@2' only, so rerun the scenario to rewrite it: "
        "durable-harness run --candidate reference --scenario durable_harness/scenarios/x.yaml --seed 7")


def test_a_newer_format_is_refused_too() -> None:
    doc = build_run("x")
    doc["format"] = "durable-harness/run@3"
    with pytest.raises(ValueError, match=r"^run.json: written by a newer harness \(format 'durable-harness/run@3'\)"):
        validate_run(doc)


def _set(path: str, value: Any) -> Callable[[Doc], None]:
    def apply(doc: Doc) -> None:
        *parents, last = path.split(".")
        target: Any = doc
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = value
    return apply


def _delete(path: str) -> Callable[[Doc], None]:
    def apply(doc: Doc) -> None:
        *parents, last = path.split(".")
        target: Any = doc
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        del target[last]
    return apply


REJECTED = [
    ("verdict", _set("verdict", "maybe"), "$.verdict: 'maybe' is not one of"),
    ("checker verdict", _set("checkers.0.verdict", "green"), "$.checkers[0].verdict: 'green' is not one of"),
    ("witness without file", _set("checkers.0.witnesses", [{"index": 1, "type": "ok", "time_s": 1.0,
                                                            "process": "w", "summary": "s"}]),
     "$.checkers[0].witnesses[0].file: missing (required)"),
    ("missing seed", _delete("seed"), "$.seed: missing (required)"),
    ("unknown key", _set("colour", "red"), "$.colour: unexpected key; allowed keys:"),
    ("bare candidate", _set("candidate", "reference"), "$.candidate: 'reference' is not of type 'object'"),
    ("short digest", _set("candidate.digest", "1a2b"), "$.candidate.digest: '1a2b' does not match"),
    ("short commit", _set("harness.commit", "4f5e"), "$.harness.commit: '4f5e' does not match"),
    ("string error", _set("error", "boom"), "$.error: 'boom' is not of type 'object', 'null'"),
    ("error kind", _set("error", {"kind": "oops", "message": "m", "detail": None}), "$.error.kind: 'oops' is not one of"),
    ("fault status", _set("faults.0.status", "skipped"), "$.faults[0].status: 'skipped' is not one of"),
    ("fault channel", _delete("faults.0.channel"), "$.faults[0].channel: missing (required)"),
    ("outcome truth", _delete("outcome.truth"), "$.outcome.truth: missing (required)"),
    ("one digest", _set("determinism", {"same": True, "digests": ["a"], "entry": None, "first": None,
                                        "second": None, "differs": []}), "$.determinism.digests: ['a'] is too short"),
    ("sweep key", _set("sweep", {"points": 2, "passed": 2, "failing": [], "k": 1}), "$.sweep.k: unexpected key"),
    ("candidate error", _set("candidate_errors", [{"method": "step", "type": "KeyError", "message": "'x'",
                                                   "history_index": None, "time_s": 1.0}]),
     "$.candidate_errors[0].frames: missing (required)"),
    ("claims list", _set("claims", []), "$.claims: [] is not of type 'object', 'null'"),
    ("bool seed", _set("seed", True), "$.seed: True is not of type 'integer'"),
    ("negative counter", _set("counters.duplicate_drafts", -1), "$.counters.duplicate_drafts: -1 is less than"),
    ("exit 4", _set("exit_code", 4), "$.exit_code: 4 is not one of [0, 1, 2, 3]"),
]


@pytest.mark.parametrize(("mutate", "expected"), [r[1:] for r in REJECTED], ids=[r[0] for r in REJECTED])
def test_rejects_bad_shape_with_path_and_value(mutate: Callable[[Doc], None], expected: str) -> None:
    doc = build_run("lost_write")
    mutate(doc)
    with pytest.raises(ValueError, match="run.json: 1 problem:") as info:
        validate_run(doc)
    assert expected in str(info.value)
    assert "run.schema.json" in str(info.value)  # says what to follow to fix it


INCONSISTENT: list[tuple[str, Callable[[Doc], Doc], str]] = [
    ("class hides its checker", lambda d: _with(d, lambda x: x["checkers"][0].update(verdict="fail")),
     "$.safety: 'pass' but checker $.checkers[0] ('duplicate_drafts') says 'fail'"),
    ("verdict better than its classes", lambda d: _with(d, lambda x: x.update(safety="fail", exit_code=1)),
     "$.verdict: 'pass' but safety is 'fail' and liveness is 'pass', which combine to 'fail'"),
    ("verdict worse than its classes", lambda d: _with(d, lambda x: x.update(verdict="unknown", exit_code=2)),
     "$.verdict: 'unknown' but safety is 'pass' and liveness is 'pass', which combine to 'pass'"),
    ("exit code disagrees", lambda d: _with(failing(d), lambda x: x.update(exit_code=2)),
     "$.exit_code: 2 but safety 'fail' and liveness 'pass' mean exit code 1"),
    ("exit 3 without an error", lambda d: _with(unknown(d), lambda x: x.update(exit_code=3)),
     "$.exit_code: 3 but error is null"),
    ("error without exit 3", lambda d: _with(errored(d, "setup"), lambda x: x.update(exit_code=2)),
     "$.exit_code: 2 but error is set (kind 'setup'); a run that could not be judged has exit code 3"),
    ("error is not green", lambda d: _with(errored(d, "harness"), lambda x: x.update(verdict="pass")),
     "$.verdict: 'pass' but error is set (kind 'harness')"),
]


def _with(doc: Doc, change: Callable[[Doc], object]) -> Doc:
    change(doc)
    return doc


@pytest.mark.parametrize(("make", "expected"), [r[1:] for r in INCONSISTENT], ids=[r[0] for r in INCONSISTENT])
def test_rejects_inconsistent_verdicts(make: Callable[[Doc], Doc], expected: str) -> None:
    with pytest.raises(ValueError) as info:
        validate_run(make(build_run("lost_write")))
    assert expected in str(info.value)


def test_an_error_may_keep_any_class_verdicts() -> None:
    doc = errored(build_run("x"), "interrupted")
    doc.update(safety="fail", verdict="fail")  # a safety violation seen before the interruption
    validate_run(doc)


def test_a_class_with_no_checkers_may_pass() -> None:
    doc = build_run("x")
    doc["checkers"] = [c for c in doc["checkers"] if c["class"] == "safety"]
    validate_run(doc)


def test_not_an_object() -> None:
    with pytest.raises(ValueError, match=r"\$: \[\] is not of type 'object'"):
        validate_run([])


def test_message_names_the_source_and_counts_every_problem() -> None:
    doc = build_run("lost_write")
    for key in ("seed", "verdict", "safety", "liveness", "exit_code", "error", "checkers", "faults", "counters"):
        del doc[key]
    with pytest.raises(ValueError) as info:
        validate_run(doc, source="lost_write/run.json")
    message = str(info.value)
    assert message.startswith("lost_write/run.json: 9 problems:")
    assert "... and 1 more" in message


def test_validate_does_not_change_the_document() -> None:
    doc = swept(raised(build_run("lost_write")))
    before = copy.deepcopy(doc)
    validate_run(doc)
    assert doc == before
