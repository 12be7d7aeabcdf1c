"""The reference control plane: correct by construction, the yardstick every scenario must pass."""

from __future__ import annotations

from typing import Any

from candidates.reference._plane import ReferencePlane
from candidates.reference._safeguards import Safeguards

__all__ = ["ReferencePlane", "Safeguards", "create"]


def create(env: Any) -> ReferencePlane:
    """The in-process factory: ``--candidate reference``."""
    return ReferencePlane(env)
