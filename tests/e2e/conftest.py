"""Fixtures of the end-to-end tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e._processes import kill_marked, new_mark, wait_gone
from tests.e2e._shared_runs import SharedRuns, shared_root


@pytest.fixture
def mark() -> Iterator[str]:
    """A mark for this test's candidate processes (``_processes.marked``); none may survive the test."""
    token = new_mark()
    yield token
    left = wait_gone(token)
    kill_marked(token)
    assert left == [], f"processes left behind: {left}"


@pytest.fixture(scope="session")
def shared_runs(tmp_path_factory: pytest.TempPathFactory) -> SharedRuns:
    """Process runs shared by the tests that assert on the same run (``_shared_runs``)."""
    return SharedRuns(shared_root(tmp_path_factory))
