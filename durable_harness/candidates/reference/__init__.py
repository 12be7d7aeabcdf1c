"""The reference control plane: correct by construction, the yardstick every scenario must pass.

Importing this package is cheap (``list`` and ``validate`` resolve candidate names through it): the
plane, and the SDK it uses, are imported when a plane is created or ``ReferencePlane`` is asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from durable_harness.candidates.reference._safeguards import Safeguards

if TYPE_CHECKING:
    from durable_harness.candidates.reference._plane import ReferencePlane

__all__ = ["ReferencePlane", "Safeguards", "create"]


def create(env: Any) -> ReferencePlane:
    """The bundled correct control plane: read first, reconcile, then continue."""
    from durable_harness.candidates.reference._plane import ReferencePlane

    return ReferencePlane(env)


def __getattr__(name: str) -> Any:
    if name == "ReferencePlane":
        from durable_harness.candidates.reference._plane import ReferencePlane

        return ReferencePlane
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
