"""What the gate records of a body and how a history line is made: the fast paths give the bytes
the plain ways give (a JSON body walked for long strings; a line made by ``json.dumps``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from durable_harness.harness._gate import _MAX_RECORDED_STR, _shorten, _summarise_body
from durable_harness.harness._history import Entry, _compose, _line, _text

# Strings around the recorded limit, with the characters JSON escapes (quotes, backslashes,
# control characters) and characters of several UTF-8 lengths.
_CHARS = st.sampled_from(['a', '"', '\\', '\n', '\x01', 'é', '€', '😀', '\u2200', ' '])
_TEXT = st.text(alphabet=_CHARS, max_size=12) | st.builds(
    lambda n, c, tail: c * n + tail, st.integers(_MAX_RECORDED_STR - 20, _MAX_RECORDED_STR + 20), _CHARS,
    st.text(alphabet=_CHARS, max_size=3))
_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
                     max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(_JSON, st.sampled_from(["utf-8", "utf-16", "utf-32-le"]), st.booleans())
def test_a_json_body_is_recorded_as_if_walked_whole(value: Any, encoding: str, ascii_only: bool) -> None:
    body = json.dumps(value, ensure_ascii=ascii_only).encode(encoding)
    assert _summarise_body(body, {"content-type": "application/json"}) == _shorten(json.loads(body))


def test_a_long_string_is_recorded_by_digest_and_a_short_one_as_it_is() -> None:
    long, short = "x" * (_MAX_RECORDED_STR + 1), "y" * _MAX_RECORDED_STR
    got = _summarise_body(json.dumps({"a": [long], "b": short}).encode(), {"content-type": "application/json"})
    assert got["b"] == short and set(got["a"][0]) == {"sha256", "len"} and got["a"][0]["len"] == len(long)


@pytest.mark.parametrize("char", ["a", '"', "\\", "\n", "é"])
@pytest.mark.parametrize("n", [_MAX_RECORDED_STR, _MAX_RECORDED_STR + 1])
def test_a_string_just_over_the_limit_is_recorded_by_digest_whatever_its_escapes(char: str, n: int) -> None:
    """At the limit exactly, with and without escapes in its token (a quote's escape is the slow path)."""
    for value in ({"k": char * n}, [char * n, "x"], char * n):
        got = _summarise_body(json.dumps(value).encode(), {"content-type": "application/json"})
        assert got == _shorten(value) and (got != value) == (n > _MAX_RECORDED_STR), (char, n, value)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**6), st.one_of(st.floats(allow_nan=True), st.integers(-10**30, 10**30)),
       st.sampled_from(["invoke", "ok", "event"]), _TEXT, st.one_of(st.none(), st.integers(0, 10**20)))
def test_a_history_line_is_the_canonical_json_of_its_entry(index: int, time_s: float, type_: str,
                                                           process: str, op: int | None) -> None:
    entry = Entry(index, time_s, type_, process, op, {"k": [1, "v"]})
    assert _compose(entry, _text(entry.data)) == _line(entry)
