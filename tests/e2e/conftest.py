"""Fixtures of the end-to-end tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e._processes import kill_marked, new_mark, wait_gone


@pytest.fixture
def mark() -> Iterator[str]:
    """A mark for this test's candidate processes (``_processes.marked``); none may survive the test."""
    token = new_mark()
    yield token
    left = wait_gone(token)
    kill_marked(token)
    assert left == [], f"processes left behind: {left}"
