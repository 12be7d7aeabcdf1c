"""The virtual clock of one run.

Everything in the core reads time from here: fakes, faults, the candidate's waits in-process.
Time never goes backwards. ``sleep`` advances the clock at once (autojump): in-process only one
actor runs at a time, so when it sleeps every other actor is blocked and nothing can happen in
between except what is scheduled on this clock. Timers let fakes schedule work ("the agent
finishes thinking at t+1.5 s"); ``next_deadline`` tells the run loop how far it may jump.

It deliberately knows nothing of the wall clock: a 10-minute lease expiry costs microseconds.
"""

from __future__ import annotations

import datetime as _dt
import heapq
import itertools
from collections.abc import Callable

__all__ = ["ClockError", "VirtualClock"]

EPOCH = _dt.datetime(2026, 1, 5, 9, 0, 0, tzinfo=_dt.timezone.utc)


class ClockError(ValueError):
    """A request that would move the clock backwards or by a negative amount."""


class VirtualClock:
    """Seconds since the start of the run, as a float, plus timers."""

    def __init__(self, start_s: float = 0.0) -> None:
        self._now = float(start_s)
        self._timers: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self._listeners: list[Callable[[float, float], None]] = []

    def now(self) -> float:
        return self._now

    def unix(self) -> int:
        """Whole seconds since the Unix epoch, for wire fields such as ``created_at``."""
        return int(EPOCH.timestamp() + self._now)

    def datetime(self) -> _dt.datetime:
        return EPOCH + _dt.timedelta(seconds=self._now)

    def sleep(self, seconds: float) -> None:
        """Autojump: advance by ``seconds``, firing every timer that falls due on the way."""
        if seconds < 0:
            raise ClockError(f"sleep(seconds={seconds!r}) must be >= 0")
        self.jump(self._now + seconds)

    def jump(self, to_s: float) -> None:
        """Move to ``to_s``; refuses to go backwards."""
        if to_s < self._now:
            raise ClockError(f"jump(to_s={to_s!r}) is before now={self._now!r}; time never goes backwards")
        before = self._now
        while self._timers and self._timers[0][0] <= to_s:
            due, _, fire = heapq.heappop(self._timers)
            self._now = max(self._now, due)
            fire()
        self._now = to_s
        if to_s > before:
            for listener in self._listeners:
                listener(before, to_s)

    def call_at(self, due_s: float, fire: Callable[[], None]) -> None:
        """Run ``fire`` when the clock reaches ``due_s`` (at once on the next jump if already due)."""
        heapq.heappush(self._timers, (float(due_s), next(self._seq), fire))

    def call_later(self, delay_s: float, fire: Callable[[], None]) -> None:
        if delay_s < 0:
            raise ClockError(f"call_later(delay_s={delay_s!r}) must be >= 0")
        self.call_at(self._now + delay_s, fire)

    def run_due(self) -> int:
        """Fire the timers already due without moving the clock; returns how many fired."""
        fired = 0
        while self._timers and self._timers[0][0] <= self._now:
            _, _, fire = heapq.heappop(self._timers)
            fire()
            fired += 1
        return fired

    def next_deadline(self) -> float | None:
        return self._timers[0][0] if self._timers else None

    def on_jump(self, listener: Callable[[float, float], None]) -> None:
        """Register ``listener(before_s, after_s)``; the history uses it to record clock jumps."""
        self._listeners.append(listener)
