from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from durable_harness.harness import History


def test_operations_pair_invokes_with_completions() -> None:
    h = History()
    op1 = h.invoke(0.0, "worker-1", {"route": "/a"})
    op2 = h.invoke(1.0, "worker-1", {"route": "/b"})
    h.complete(2.0, op1, "ok", {"status": 201})
    pairs = h.operations()
    assert [(i.op, d.type if d else None) for i, d in pairs] == [(op1, "ok"), (op2, None)]
    assert h.close_open(3.0, "crashed") == 1
    assert h.operations()[1][1] is not None and h.operations()[1][1].type == "info"


def test_completion_rules() -> None:
    h = History()
    op = h.invoke(0.0, "p", {})
    with pytest.raises(ValueError, match="completion type"):
        h.complete(0.0, op, "invoke", {})
    h.complete(0.0, op, "fail", {})
    with pytest.raises(ValueError, match="no open invoke"):
        h.complete(0.0, op, "ok", {})
    with pytest.raises(ValueError, match="entry type"):
        h.append(0.0, "bogus", "p")


def test_save_load_roundtrip_keeps_digest(tmp_path: Path) -> None:
    h = History()
    op = h.invoke(0.5, "w", {"body": b"\x00bytes", "tags": {"b", "a"}})
    h.complete(1.25, op, "info", {"error": "lost"})
    h.append(2.0, "fault", "nemesis", {"kind": "lose_response"})
    path = tmp_path / "h.jsonl"
    h.save(path)
    again = History.load(path)
    assert again.digest() == h.digest()
    assert list(again)[0].data["tags"] == ["a", "b"]
    assert "bytes_sha256" in list(again)[0].data["body"]


def test_digest_changes_with_any_entry() -> None:
    a, b = History(), History()
    a.append(0.0, "note", "x", {"v": 1})
    b.append(0.0, "note", "x", {"v": 2})
    assert a.digest() != b.digest()


def test_non_json_data_is_refused() -> None:
    with pytest.raises(TypeError, match="record plain JSON"):
        History().append(0.0, "note", "x", {"v": object()})


def test_load_names_the_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text('{"index":0}\n')
    with pytest.raises(ValueError, match="h.jsonl:1"):
        History.load(path)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=150, deadline=None)
@given(data=st.dictionaries(st.text(max_size=6), _JSON, max_size=5),
       time_s=st.floats(min_value=0, max_value=1e6, allow_nan=False), op=st.none() | st.integers(1, 10**6),
       process=st.text(max_size=10))
def test_each_entry_is_serialised_once_into_the_canonical_line(data: dict[str, Any], time_s: float, op: int | None,
                                                              process: str) -> None:
    """The line an entry gets at append (made from its data serialised once) is, byte for byte, the
    canonical JSON of the whole entry: what a history saved before this was written with."""
    h = History()
    entry = h.append(time_s, "note", process, data, op=op)
    assert next(h.lines()) == json.dumps(entry.to_json(), sort_keys=True, separators=(",", ":"))


def test_a_history_read_back_keeps_its_lines_and_digest(tmp_path: Path) -> None:
    h = History()
    h.append(0.0, "note", "x", {"by_id": {10: "ten", 9: "nine"}, "v": 1.5})  # keys that are not strings
    h.append(1.0, "note", "y", {"v": [1, 2]})
    h.save(tmp_path / "h.jsonl")
    again = History.load(tmp_path / "h.jsonl")
    assert list(again.lines()) == list(h.lines()) and again.digest() == h.digest()
    assert [e.data for e in again] == [e.data for e in h] == [{"by_id": {"9": "nine", "10": "ten"}, "v": 1.5},
                                                              {"v": [1, 2]}]
    again.append(2.0, "note", "z", {})
    assert again.digest() != h.digest()
