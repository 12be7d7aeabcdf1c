"""A SIGINT or SIGTERM the command line took, kept until the run stops.

The command line's handler raises ``KeyboardInterrupt`` where the signal lands. Python may swallow
that exception when it lands in code that cannot raise (a weak reference's callback, a
``__del__``: "Exception ignored in ..."): the run would then go on as if nothing had happened. So
the signal is also noted here, and the run loops call ``raise_if_pending`` at every step: a
swallowed interrupt stops the run at its next step all the same.

``handling`` installs a handler for both signals, in the main thread only (an embedding program's
other threads cannot, and keep its handlers), and puts the earlier ones back after: the command
line's (raise, and note), the parallel runs' (note only: ``_parallel``) and ``serve-fake``'s (stop
serving) are each one. What it deliberately does not do: decide what a stopped run reports
(``_run`` does).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["clear", "handling", "note", "pending", "raise_if_pending"]

SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def handling(handler: Callable[[int, FrameType | None], None]) -> Iterator[bool]:
    """``handler`` for SIGINT and SIGTERM meanwhile; yields whether it was installed (the main thread)."""
    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {sig: signal.signal(sig, handler) for sig in SIGNALS}
    try:
        yield bool(previous)
    finally:
        for sig, earlier in previous.items():
            signal.signal(sig, earlier)

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
