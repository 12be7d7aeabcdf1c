"""A SIGINT or SIGTERM the command line took, kept until the run stops.

The command line's handler raises ``KeyboardInterrupt`` where the signal lands. Python may swallow
that exception when it lands in code that cannot raise (a weak reference's callback, a
``__del__``: "Exception ignored in ..."): the run would then go on as if nothing had happened. So
the signal is also noted here, and the run loops call ``raise_if_pending`` at every step: a
swallowed interrupt stops the run at its next step all the same.

What it deliberately does not do: install handlers (the command line does, only in its own main
thread) or decide what a stopped run reports (``_run`` does).
"""

from __future__ import annotations

__all__ = ["clear", "note", "pending", "raise_if_pending"]

_PENDING: list[str] = []


def note(name: str) -> None:
    _PENDING.append(name)


def clear() -> None:
    _PENDING.clear()


def pending() -> str | None:
    """The first signal taken since the last ``clear`` (``SIGINT``, ``SIGTERM``), or None."""
    return _PENDING[0] if _PENDING else None


def raise_if_pending() -> None:
    if _PENDING:
        raise KeyboardInterrupt
