"""validate_run: the shipped schema accepts real documents and names the path and value it refuses."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from _run_docs import broken, build_run, failing, unknown
from jsonschema import Draft202012Validator

from reports import validate_run
from reports._schema import load_schema, worst

Doc = dict[str, Any]


def test_shipped_schema_is_a_valid_draft_2020_12_schema() -> None:
    schema = load_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("kind", [lambda d: d, failing, unknown, broken], ids=["pass", "fail", "unknown", "broken"])
def test_accepts_every_kind_of_run(kind: Callable[[Doc], Doc]) -> None:
    validate_run(kind(build_run("lost_write")))


def test_accepts_extra_counters_and_free_form_truth() -> None:
    doc = build_run("lost_write")
    doc["counters"]["stuck_jobs"] = 0
    doc["truth"] = {"anything": [1, {"nested": None}]}
    validate_run(doc)


def _set(path: str, value: Any) -> Callable[[Doc], None]:
    def apply(doc: Doc) -> None:
        *parents, last = path.split(".")
        target: Any = doc
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = value
    return apply


def _delete(key: str) -> Callable[[Doc], None]:
    return lambda doc: doc.pop(key) and None


REJECTED = [
    ("verdict", _set("verdict", "maybe"), "$.verdict: 'maybe' is not one of"),
    ("checker verdict", _set("checkers.0.verdict", "green"), "$.checkers[0].verdict: 'green' is not one of"),
    ("witness time", _set("checkers.0.witnesses", [{"index": 1, "type": "ok", "time_s": "soon",
                                                     "process": "w", "summary": "s"}]),
     "$.checkers[0].witnesses[0].time_s: 'soon' is not of type 'number'"),
    ("missing seed", _delete("seed"), "$.seed: missing (required)"),
    ("unknown key", _set("colour", "red"), "$.colour: unexpected key; allowed keys:"),
    ("format", _set("format", "durable-harness/run@2"),
     "$.format: 'durable-harness/run@2' must be 'durable-harness/run@1'"),
    ("bool seed", _set("seed", True), "$.seed: True is not of type 'integer'"),
    ("negative counter", _set("counters.duplicate_drafts", -1), "$.counters.duplicate_drafts: -1 is less than"),
    ("digest", _set("history.digest", "abc"), "$.history.digest: 'abc' does not match"),
    ("exit 4", _set("exit_code", 4), "$.exit_code: 4 is not one of [0, 1, 2, 3]"),
    ("fault params", _set("faults.0.params", []), "$.faults[0].params: [] is not of type 'object'"),
]


@pytest.mark.parametrize(("mutate", "expected"), [r[1:] for r in REJECTED], ids=[r[0] for r in REJECTED])
def test_rejects_bad_shape_with_path_and_value(mutate: Callable[[Doc], None], expected: str) -> None:
    doc = build_run("lost_write")
    mutate(doc)
    with pytest.raises(ValueError, match="run.json: 1 problem:") as info:
        validate_run(doc)
    assert expected in str(info.value)
    assert "run.schema.json" in str(info.value)  # says what to follow to fix it


def test_exit_code_3_needs_an_error() -> None:
    doc = broken(build_run("bad_candidate"))
    doc["error"] = None
    with pytest.raises(ValueError, match=r"\$\.error: None is not of type 'string'"):
        validate_run(doc)


INCONSISTENT = [
    ("verdict better than safety", lambda d: d.update(safety="fail", exit_code=1), "$.verdict: 'pass' but safety"),
    ("class hides its checker", lambda d: d["checkers"][0].update(verdict="fail"),
     "$.safety: 'pass' but checker $.checkers[0] ('duplicate_drafts') says 'fail'"),
    ("exit code disagrees", lambda d: d.update(verdict="unknown", liveness="unknown"),
     "$.exit_code: 0 but verdict 'unknown' and safety 'pass' mean exit code 2"),
    ("fail without a failing class", lambda d: d.update(verdict="fail", exit_code=2),
     "$.verdict: 'fail' but neither safety nor liveness is 'fail'"),
    ("harness error is not green", lambda d: d.update(exit_code=3, error="boom"),
     "$.verdict: 'pass' but exit_code is 3"),
]


@pytest.mark.parametrize(("mutate", "expected"), [r[1:] for r in INCONSISTENT], ids=[r[0] for r in INCONSISTENT])
def test_rejects_inconsistent_verdicts(mutate: Callable[[Doc], None], expected: str) -> None:
    doc = build_run("lost_write")
    mutate(doc)
    with pytest.raises(ValueError) as info:
        validate_run(doc)
    assert expected in str(info.value)


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
    doc = failing(build_run("lost_write"))
    before = copy.deepcopy(doc)
    validate_run(doc)
    assert doc == before


def test_worst_orders_fail_over_unknown_over_pass() -> None:
    assert worst([]) == "pass"
    assert worst(["pass", "unknown"]) == "unknown"
    assert worst(["unknown", "fail", "pass"]) == "fail"
