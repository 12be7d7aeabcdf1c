"""Versions of the reference for deploy scenarios (``--candidate-next``): a correct next version, and
one that strands the work the previous version left pending.

``next_version`` is the reference, as a new release of it would be: it takes up the jobs the old
version recorded. ``strands_pending_work`` keeps its state in a new store it migrated to without
copying the old one (``<database>-v2``): it never learns of the job the previous version was
working, as a durable-execution library that pins pending workflows to the code version that
started them never resumes them after a deploy. The harness must say so.
"""

from __future__ import annotations

from typing import Any

from durable_harness.candidates.reference import ReferencePlane, create

__all__ = ["next_version", "strands_pending_work"]


def next_version(env: Any) -> ReferencePlane:
    return create(env)


def strands_pending_work(env: Any) -> ReferencePlane:
    return create(_Moved(env, _beside(env.database_url, "-v2")))


class _Moved:
    """The environment as given, but another database (whatever kind of object the driver passes)."""

    def __init__(self, env: Any, database_url: str) -> None:
        self._env = env
        self.database_url = database_url

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)


def _beside(url: str, suffix: str) -> str:
    if url.startswith("sqlite:///") and url.endswith(".sqlite"):
        return url[: -len(".sqlite")] + suffix + ".sqlite"
    return url + suffix
