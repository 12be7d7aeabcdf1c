"""``wire_copy`` is ``copy.deepcopy`` for the wire values the sessions fake keeps (its items): an
equal value that shares no dict or list with the original, whatever else it holds."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from durable_harness.fakes.openai_agents._objects import wire_copy

_SCALAR = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)
_ODD = st.tuples(st.lists(st.integers(), max_size=2)) | st.sets(st.integers(), max_size=2)  # not wire values
_VALUE = st.recursive(_SCALAR | _ODD, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=16)


def _containers(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [value, *(c for v in value.values() for c in _containers(v))]
    if isinstance(value, (list, tuple, set)):
        return [value, *(c for v in value for c in _containers(v))]
    return []


@settings(max_examples=300, deadline=None)
@given(_VALUE)
def test_a_wire_copy_is_a_deep_copy(value: Any) -> None:
    copied = wire_copy(value)
    assert copied == copy.deepcopy(value) == value
    mutable = {id(c) for c in _containers(value) if not isinstance(c, tuple)}
    assert not mutable & {id(c) for c in _containers(copied) if not isinstance(c, tuple)}
