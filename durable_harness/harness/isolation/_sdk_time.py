"""The openai SDK's webhook check, on the run's virtual clock.

``openai.webhooks.verify_signature``/``unwrap`` compare the ``webhook-timestamp`` with the wall
clock (the ``time`` module's ``time`` function). In-process, webhooks are stamped with virtual time, so during a run the SDK's
webhook module reads its ``time`` from the virtual clock instead. Likewise its retry loop (used
only when a scenario turns the SDK's own retries on) sleeps on the virtual clock and draws its
jitter from the run's seeded random stream. This is the one place the
harness patches rather than injects: the SDK offers no way to pass a clock, and a candidate should
be able to verify webhooks with the SDK unchanged. The patch is scoped to one run and undone after.

The stand-ins of the run going on are kept here (``active``, ``answer``, ``times``), whoever asks: a
candidate in processes of its own is told their time with every message on its pipe, asks for a
sleep or a random draw over it, and patches its own SDK, so the harness's
process needs no SDK of its own for it (importing it cost a harness process about a quarter of a
second of CPU and a third of its memory, which every crash point's fork copies). The harness's
own SDK is patched only where it is: when it was imported already, or when an ``env`` is built in
this process (``patch_here``: a candidate that runs inside it).
"""

from __future__ import annotations

import contextlib
import random
import sys
from collections.abc import Callable, Iterator
from typing import Any

from durable_harness.harness._clock import VirtualClock

__all__ = ["active", "answer", "patch_here", "sdk_retries_on_virtual_time", "sdk_webhooks_on_virtual_time", "times"]


class _VirtualTime:
    """Stands in for the ``time`` module inside ``openai.lib._webhooks`` (only ``time()`` is used)."""

    def __init__(self, clock: VirtualClock) -> None:
        self._clock = clock

    def time(self) -> float:
        return float(self._clock.unix())

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"the SDK's webhook check used time.{name}; only time() is on the virtual clock")


# The run's stand-ins, by the SDK's module they stand in for ("webhooks", "retries"): (the object that
# stands in for its ``time``, what stands in for its ``random`` or None), and the patches applied to
# this process's SDK (module, attribute, original value), undone when the run's context ends.
_STAND_INS: dict[str, tuple[Any, Callable[[], float] | None]] = {}
_PATCHED: dict[str, list[tuple[Any, str, Any]]] = {}
_MODULES = {"webhooks": "openai.lib._webhooks", "retries": "openai._base_client"}


def active() -> dict[str, bool]:
    """Which of the SDK's clocks are on the run's clock now: what an instance's SDK asks the harness for."""
    return {which: which in _STAND_INS for which in _MODULES}


def answer(which: str, op: str, value: float) -> float:
    """The run's stand-in for the SDK's ``time`` (``which``: ``webhooks`` or ``retries``), asked by
    an instance in a process of its own: ``time``, ``sleep`` or (retries) ``random``."""
    time_, random_ = _STAND_INS[which]
    if op == "sleep":
        time_.sleep(value)
        return 0.0
    if op == "random" and random_ is not None:
        return float(random_())
    return float(time_.time())


def times() -> dict[str, float]:
    """What each stand-in's ``time()`` says now (by ``which``; empty: none is active): sent with every
    message to an instance, which then knows it without asking (it moves only while the harness runs)."""
    return {which: float(time_.time()) for which, (time_, _) in _STAND_INS.items()}


def patch_here() -> None:
    """Put this process's own SDK on the run's clock as well (before a candidate runs inside it)."""
    import importlib

    for which, (time_, random_) in _STAND_INS.items():
        if which in _PATCHED:
            continue
        module = importlib.import_module(_MODULES[which])
        wanted = [("time", time_)] + ([("random", random_)] if random_ is not None else [])
        _PATCHED[which] = [(module, name, getattr(module, name)) for name, _ in wanted]
        for name, value in wanted:
            setattr(module, name, value)


@contextlib.contextmanager
def _stand_in(which: str, time_: Any, random_: Callable[[], float] | None) -> Iterator[None]:
    _STAND_INS[which] = (time_, random_)
    try:
        if _MODULES[which] in sys.modules:  # imported already: whoever uses it here gets the run's clock
            patch_here()
        yield
    finally:
        for module, name, original in reversed(_PATCHED.pop(which, [])):
            setattr(module, name, original)
        _STAND_INS.pop(which, None)


def sdk_webhooks_on_virtual_time(clock: VirtualClock) -> contextlib.AbstractContextManager[None]:
    return _stand_in("webhooks", _VirtualTime(clock), None)


class _RetryTime:
    """Stands in for the ``time`` module inside ``openai._base_client``: the SDK's own retries wait
    on the run's clock (``sleep``) and read the date of a ``Retry-After`` against it (``time``)."""

    def __init__(self, clock: VirtualClock, sleep: Callable[[float], None]) -> None:
        self._clock = clock
        self._sleep = sleep

    def time(self) -> float:
        return float(self._clock.unix())

    def sleep(self, seconds: float) -> None:
        self._sleep(seconds)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"the SDK's retry loop used time.{name}; only time() and sleep() are on the run's clock")


def sdk_retries_on_virtual_time(clock: VirtualClock, sleep: Callable[[float], None],
                                rng: random.Random) -> contextlib.AbstractContextManager[None]:
    """During a run, the SDK's retry loop sleeps on the run's clock and draws its jitter from the
    run's seeded random stream, so a run with the SDK's retries on stays a function of its seed."""
    return _stand_in("retries", _RetryTime(clock, sleep), rng.random)
