"""The openai SDK's webhook check, on the run's virtual clock.

``openai.webhooks.verify_signature``/``unwrap`` compare the ``webhook-timestamp`` with the wall
clock (the ``time`` module's ``time`` function). In-process, webhooks are stamped with virtual time, so during a run the SDK's
webhook module reads its ``time`` from the virtual clock instead. Likewise its retry loop (used
only when a scenario turns the SDK's own retries on) sleeps on the virtual clock and draws its
jitter from the run's seeded random stream. This is the one place the
harness patches rather than injects: the SDK offers no way to pass a clock, and a candidate should
be able to verify webhooks with the SDK unchanged. The patch is scoped to one run and undone after.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterator
from typing import Any

from durable_harness.harness._clock import VirtualClock

__all__ = ["sdk_retries_on_virtual_time", "sdk_webhooks_on_virtual_time"]


class _VirtualTime:
    """Stands in for the ``time`` module inside ``openai.lib._webhooks`` (only ``time()`` is used)."""

    def __init__(self, clock: VirtualClock) -> None:
        self._clock = clock

    def time(self) -> float:
        return float(self._clock.unix())

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"the SDK's webhook check used time.{name}; only time() is on the virtual clock")


@contextlib.contextmanager
def sdk_webhooks_on_virtual_time(clock: VirtualClock) -> Iterator[None]:
    from openai.lib import _webhooks

    original = getattr(_webhooks, "time")
    setattr(_webhooks, "time", _VirtualTime(clock))
    try:
        yield
    finally:
        setattr(_webhooks, "time", original)


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


@contextlib.contextmanager
def sdk_retries_on_virtual_time(clock: VirtualClock, sleep: Callable[[float], None], rng: random.Random) -> Iterator[None]:
    """During a run, the SDK's retry loop sleeps on the run's clock and draws its jitter from the
    run's seeded random stream, so a run with the SDK's retries on stays a function of its seed."""
    from openai import _base_client

    originals = (getattr(_base_client, "time"), getattr(_base_client, "random"))
    setattr(_base_client, "time", _RetryTime(clock, sleep))
    setattr(_base_client, "random", rng.random)
    try:
        yield
    finally:
        setattr(_base_client, "time", originals[0])
        setattr(_base_client, "random", originals[1])
