"""validate_report: the shipped report.schema.json and the index's own invariants."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from _run_docs import build_index
from jsonschema import Draft202012Validator

from durable_harness.reports import validate_report
from durable_harness.reports._schema import REPORT_SCHEMA, load_schema

Doc = dict[str, Any]


def test_shipped_schema_is_a_valid_draft_2020_12_schema() -> None:
    schema = load_schema(REPORT_SCHEMA)
    assert schema["$id"] == "urn:durable-harness:schema:report@1"
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("index", [
    build_index(["a", "b"]),
    build_index(["a", "b"], completed=1, interrupted_by="SIGTERM"),
    build_index(["a", "b"], digest=None, commit=None),
    build_index([]),
], ids=["complete", "interrupted", "no-digest-no-commit", "nothing-planned"])
def test_accepts_valid_indexes(index: Doc) -> None:
    validate_report(index)


REJECTED: list[tuple[str, Callable[[Doc], object], str]] = [
    ("format", lambda d: d.update(format="durable-harness/report@2"),
     "$.format: 'durable-harness/report@2' must be 'durable-harness/report@1'"),
    ("signal", lambda d: d.update(interrupted_by="SIGKILL", partial=True), "$.interrupted_by: 'SIGKILL' is not one of"),
    ("local time", lambda d: d.update(started_at="2026-11-30T10:46:21+01:00"), "$.started_at: '2026-11-30T10:46:21+01:00'"),
    ("duplicate plan", lambda d: d.update(scenarios=["a", "a"]), "$.scenarios: ['a', 'a'] has non-unique elements"),
    ("short commit", lambda d: d["harness"].update(commit="4f5e6d7"), "$.harness.commit: '4f5e6d7' does not match"),
    ("candidate string", lambda d: d.update(candidate="reference"), "$.candidate: 'reference' is not of type 'object'"),
    ("unknown key", lambda d: d.update(seed=7), "$.seed: unexpected key"),
    ("too many completed", lambda d: d.update(completed=3), "$.completed: 3 but only 2 scenarios were planned"),
    ("interrupted but whole", lambda d: d.update(interrupted_by="SIGINT"),
     "$.partial: False but interrupted_by is 'SIGINT'; an interrupted report is partial"),
    ("incomplete but whole", lambda d: d.update(completed=1),
     "$.partial: False but completed is 1 of 2 planned"),
]


@pytest.mark.parametrize(("mutate", "expected"), [r[1:] for r in REJECTED], ids=[r[0] for r in REJECTED])
def test_rejects_with_path_and_value(mutate: Callable[[Doc], object], expected: str) -> None:
    index = build_index(["a", "b"])
    mutate(index)
    with pytest.raises(ValueError, match=r"^report.json: 1 problem:") as info:
        validate_report(index)
    assert expected in str(info.value)
    assert "report.schema.json" in str(info.value)
