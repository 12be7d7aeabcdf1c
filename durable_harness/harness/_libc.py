"""The C library through ctypes, for the two Linux calls that have no Python wrapper (``prctl``,
``unshare``), loaded once per process. A process that forks loads it first, so that its forks (the
zygote's instances, a sweep's crash points) inherit it instead of importing ctypes at each start
(measured: 8 ms and some 540 touched pages a fork cold, 0.7 ms with the handle inherited).

It deliberately makes no call itself: each caller says what it asks of the kernel and why."""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["libc"]


@functools.cache
def libc() -> Any:
    """The C library of this process (``ctypes.CDLL(None)``, errno kept)."""
    import ctypes

    return ctypes.CDLL(None, use_errno=True)
