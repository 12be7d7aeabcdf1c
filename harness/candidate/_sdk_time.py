"""The openai SDK's webhook check, on the run's virtual clock.

``openai.webhooks.verify_signature``/``unwrap`` compare the ``webhook-timestamp`` with the wall
clock (the ``time`` module's ``time`` function). In-process, webhooks are stamped with virtual time, so during a run the SDK's
webhook module reads its ``time`` from the virtual clock instead. This is the one place the
harness patches rather than injects: the SDK offers no way to pass a clock, and a candidate should
be able to verify webhooks with the SDK unchanged. The patch is scoped to one run and undone after.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from harness._clock import VirtualClock

__all__ = ["sdk_webhooks_on_virtual_time"]


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
