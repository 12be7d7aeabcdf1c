"""The reference in a module that imports SQLAlchemy's ORM, as a control plane built on it does: the
benchmark's figure for what a library imported by every instance costs (``DH_PRELOAD``)."""

from __future__ import annotations

from typing import Any

import sqlalchemy.orm  # noqa: F401  (imported as a candidate built on the ORM imports it)

from durable_harness.candidates.reference import ReferencePlane, create

__all__ = ["make"]


def make(env: Any) -> ReferencePlane:
    return create(env)
