"""Fixtures of the end-to-end tests."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.e2e._processes import kill_marked, new_mark, wait_gone
from tests.e2e._shared_runs import SharedRuns, shared_root


_HOME = os.environ.get("HOME")


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytest's own, with the home folder left as it was. pytester points ``HOME`` at its temporary
    folder, and the home folder is part of a candidate's environment: the zygote the suite shares
    (``DH_ZYGOTE``) would not be this run's, and every pytest run a test starts would warm the SDK up
    in a zygote of its own (about 2 s of CPU each)."""
    if _HOME is not None:
        monkeypatch.setenv("HOME", _HOME)
    return pytester


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
