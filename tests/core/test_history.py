from __future__ import annotations

from pathlib import Path

import pytest

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
