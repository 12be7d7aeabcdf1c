"""Fixtures for the repository's own tests (the plugin's fixtures come from its entry point)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).parent

pytest_plugins = ["pytester"]


@pytest.fixture
def catalogue() -> Path:
    return REPO / "durable_harness" / "scenarios"
