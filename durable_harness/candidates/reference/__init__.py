"""The reference control plane: correct by construction, the yardstick every scenario must pass."""

from __future__ import annotations

from typing import Any

from durable_harness.candidates.reference._plane import ReferencePlane
from durable_harness.candidates.reference._safeguards import Safeguards

__all__ = ["ReferencePlane", "Safeguards", "create"]


def create(env: Any) -> ReferencePlane:
    """The bundled correct control plane: read first, reconcile, then continue."""
    return ReferencePlane(env)
