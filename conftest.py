"""Fixtures for the repository's own tests (the plugin's fixtures come from its entry point)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).parent

pytest_plugins = ["pytester"]


@pytest.fixture
def catalogue() -> Path:
    return REPO / "durable_harness" / "scenarios"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first, then the end-to-end runs (a stable sort): under ``-n auto`` the workers
    start with the long runs and end on the short ones, instead of one worker finishing a long sweep
    while the other is idle (``make test`` also lets an idle worker take tests queued for another)."""
    items.sort(key=lambda item: (item.get_closest_marker("slow") is None, item.get_closest_marker("e2e") is None))
