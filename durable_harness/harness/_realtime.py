"""Real, compressed time and the world's lock: what a run needs when the candidate is a process.

In-process one actor runs at a time and time is virtual (``_clock.VirtualClock``). When the
candidate is another process it runs when it likes, the services answer it from server threads,
and time is the wall clock's, compressed: one real second is ``scale`` scenario seconds, so a
scenario's 30-second timeout is 3 s of real time at the default scale of 10. The candidate is
told the scale (``HARNESS_TIME_SCALE``), the Unix time of the run's second 0 (``HARNESS_TIME_ORIGIN``)
and, with every call, the run's time (``X-Harness-Time``), and scales its own waits. The run's time
stands still while the candidate (re)starts (``pause``/``resume``): in-process a restart takes no
time, and scenarios are written so; a candidate syncs its clock from the next call.

``WorldLock`` guards the world (fakes, history, nemesis, timers): every thread that touches it
holds the lock, and every wait releases it completely, however deeply the waiting thread holds it.
``RealTimeClock`` has the ``VirtualClock`` interface: ``now()`` is scenario seconds since the run
began; ``unix()`` is the origin plus ``now()``, so durations in Unix seconds are scenario seconds
(a webhook's timestamp is the run's real, compressed time: the stock ``verify_signature``, which
reads the wall clock, agrees with it within its five minutes while the run is younger than
300 / (1 - 1/scale) scenario seconds, 333 s at scale 10); ``sleep`` waits it out; ``jump(t)`` waits
until ``t``, until the world changes (a request, a stream event) or one scenario second at most,
and its callers look again. Timers fire when they fall due, from whichever thread waits or serves a request.

``advance_to(t)`` skips real time: the run's time becomes ``t`` at once and every wait looks again.
The process driver does it while a candidate that takes its time from the harness is idle (see
``docs/contract.md``), never past what is due: a timer, or a thread parked in a wait on this clock
(a stream's next event, a lost response's wait, a candidate's own wait), whose ends ``parked_until``
gives.

This is the one module of the harness that reads the wall clock for a run; the in-process path
never builds these. It deliberately knows nothing of processes or servers.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import heapq
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from durable_harness.harness._clock import ClockError, VirtualClock

__all__ = ["DEFAULT_TIME_SCALE", "TIME_SCALE_ENV", "CallAbandoned", "CallTimeout", "ClockStopped", "RealBound",
           "RealTimeClock", "WorldLock", "time_scale"]

DEFAULT_TIME_SCALE = 10.0
TIME_SCALE_ENV = "DURABLE_HARNESS_TIME_SCALE"
MAX_TIME_SCALE = 1000.0
JUMP_S = 1.0  # the longest wait of one jump, in scenario seconds
T = TypeVar("T")


def time_scale() -> float:
    """The scale of a run in real time: ``DURABLE_HARNESS_TIME_SCALE`` when set, else 10; 1 (and only 1)
    against a sessions API by URL (``DH_SERVICE_OPENAI``, ``services._upstream``): its agent thinks, and its timestamps are
    written, on the wall clock, which the run's time must then be (``RealTimeClock(wall=True)``)."""
    from durable_harness.harness.services._upstream import url_variable

    wall = url_variable("openai")
    raw = os.environ.get(TIME_SCALE_ENV)
    if (os.environ.get(wall) or "").strip():
        if raw is not None and raw.strip() and raw.strip() not in ("1", "1.0"):
            raise ValueError(f"{TIME_SCALE_ENV}={raw!r}: against a sessions API by URL ({wall}) a run keeps "
                             "the wall clock, scale 1 (unset it, or set it to 1)")
        return 1.0
    if raw is None or not raw.strip():
        return DEFAULT_TIME_SCALE
    try:
        scale = float(raw)
    except ValueError:
        scale = float("nan")
    if not 1.0 <= scale <= MAX_TIME_SCALE:
        raise ValueError(f"{TIME_SCALE_ENV}={raw!r} must be a number from 1 (real time) to {MAX_TIME_SCALE:g}")
    return scale


class CallTimeout(TimeoutError):
    """``WorldLock.call_unlocked`` gave up waiting for its call."""


class CallAbandoned(Exception):
    """``WorldLock.call_unlocked`` stopped waiting: the process called was frozen meanwhile."""


class ClockStopped(BaseException):
    """Raised inside a wait of the real-time clock once the run is over, or once the reader of the
    stream that waits has gone: the waiting code unwinds (a BaseException, so no guard takes it for
    a failure of the world)."""


class WorldLock:
    """A re-entrant lock under a condition. ``notify()`` wakes every waiter: the world changed."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.RLock())

    def __enter__(self) -> WorldLock:
        self._cond.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._cond.__exit__(*exc)

    def notify(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def wait(self, timeout_s: float) -> bool:
        """Release the world for at most ``timeout_s`` real seconds, or until notified (True)."""
        with self._cond:
            return self._cond.wait(max(0.0, timeout_s))

    def wait_for(self, predicate: Callable[[], bool], timeout_s: float) -> bool:
        with self._cond:
            return self._cond.wait_for(predicate, max(0.0, timeout_s))

    def call_unlocked(self, fn: Callable[[], T], timeout_s: float, abandon: Callable[[], bool] | None = None,
                      meanwhile: Callable[[], None] | None = None, every_s: float = 0.005) -> T:
        """``fn()`` on another thread while this one waits with the world released: a call into the
        candidate must never hold the world, or the candidate could not reach the services meanwhile.
        Raises ``CallTimeout`` after ``timeout_s`` real seconds, and ``CallAbandoned`` as soon as
        ``abandon()`` holds once notified (the callee was stopped): ``fn`` is left to finish by itself.
        ``meanwhile()`` runs every ``every_s`` real seconds of the wait, with the world held (the
        process driver skips the run's time there while every candidate is idle)."""
        box: list[tuple[bool, object]] = []

        def run() -> None:
            try:
                result: tuple[bool, object] = (True, fn())
            except BaseException as err:  # handed to the caller, whatever it is
                result = (False, err)
            with self._cond:
                box.append(result)
                self._cond.notify_all()

        threading.Thread(target=run, name="dh-call", daemon=True).start()
        done = lambda: bool(box) or (abandon is not None and abandon())  # noqa: E731
        with self._cond:
            if meanwhile is None:
                answered = self._cond.wait_for(done, max(0.0, timeout_s))
            else:
                bound = RealBound(max(0.0, timeout_s))
                while not (answered := self._cond.wait_for(done, min(every_s, bound.remaining()))) and not bound.expired():
                    meanwhile()
            if not answered:
                raise CallTimeout(f"no answer within {timeout_s:g} s")
            if not box:
                raise CallAbandoned("the callee was stopped before it answered")
        ok, value = box[0]
        if not ok:
            assert isinstance(value, BaseException)
            raise value
        return value  # type: ignore[return-value]


class RealBound:
    """A bound in real seconds, for waits that scenario time must not stretch (a candidate starting)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._start = time.monotonic()
        self._end = self._start + seconds

    def elapsed(self) -> float:
        """Real seconds since the bound began (how long a start took)."""
        return time.monotonic() - self._start

    def remaining(self) -> float:
        return max(0.0, self._end - time.monotonic())

    def expired(self) -> bool:
        return time.monotonic() >= self._end


class RealTimeClock(VirtualClock):
    """Scenario seconds that follow the wall clock, ``scale`` times faster; timers on it."""

    def __init__(self, scale: float, lock: WorldLock, *, wall: bool = False) -> None:
        """``wall``: the run's time is the wall clock's (scale 1, its Unix time the wall's), and never
        stands still (``pause`` does nothing), as a real service on the other side of a run keeps it."""
        if not 1.0 <= scale <= MAX_TIME_SCALE:
            raise ClockError(f"RealTimeClock(scale={scale!r}) must be from 1 to {MAX_TIME_SCALE:g}")
        if wall and scale != 1.0:
            raise ClockError(f"RealTimeClock(scale={scale!r}, wall=True): the wall clock runs at scale 1")
        super().__init__()
        self.scale = float(scale)
        self.wall = wall
        self.lock = lock
        self._t0 = time.monotonic()
        self.origin_unix = time.time()  # the Unix time of the run's second 0, for the candidate (HARNESS_TIME_ORIGIN)
        self._held: tuple[float, float | None] = (0.0, None)  # real seconds paused so far; when the pause began
        self._stopped = False
        self._local = threading.local()
        self._parked: dict[int, float] = {}  # thread -> the run's time its wait on this clock ends
        self._parked_lock = threading.Lock()
        self.jumps = 0  # how often ``advance_to`` skipped real time, and how many scenario seconds in all
        self.jumped_s = 0.0

    # -- reading -----------------------------------------------------------------------------
    def _elapsed(self) -> float:
        now = time.monotonic()
        paused, since = self._held
        return now - self._t0 - paused - (now - since if since is not None else 0.0)

    def pause(self) -> None:
        """The run's time stands still (a candidate restarting) until ``resume``."""
        paused, since = self._held
        if since is None and not self.wall:
            self._held = (paused, time.monotonic())

    def resume(self) -> None:
        paused, since = self._held
        if since is not None:
            self._held = (paused + time.monotonic() - since, None)
            self.lock.notify()

    @property
    def paused(self) -> bool:
        return self._held[1] is not None

    def advance_to(self, to_s: float) -> None:
        """The run's time is ``to_s`` now (never backwards, never while paused); every wait looks again."""
        if self.wall:  # the wall clock is not skipped
            return
        ahead = to_s - self.now()
        if ahead <= 0 or self.paused:
            return
        self._t0 -= ahead / self.scale
        self.jumps += 1
        self.jumped_s += ahead
        self.lock.notify()

    def parked(self, thread: int) -> bool:
        """Whether ``thread`` waits on this clock now (for a time to come or a change of the world)."""
        with self._parked_lock:
            return thread in self._parked

    def parked_until(self) -> float | None:
        """The earliest end of the waits on this clock now, in the run's time (None: nobody waits)."""
        with self._parked_lock:
            return min(self._parked.values(), default=None)

    def now(self) -> float:
        return self._elapsed() * self.scale

    def unix(self) -> int:
        """Unix seconds on the run's time: the origin plus scenario seconds (durations measured in Unix
        seconds, as fakes and faults do, are scenario seconds here too)."""
        return int(self.origin_unix + self.now())

    def datetime(self) -> _dt.datetime:
        return _dt.datetime.fromtimestamp(self.origin_unix + self.now(), tz=_dt.timezone.utc)

    def real_s(self, scenario_s: float) -> float:
        """How many real seconds ``scenario_s`` scenario seconds take."""
        return max(0.0, scenario_s) / self.scale

    # -- timers ------------------------------------------------------------------------------
    def call_later(self, delay_s: float, fire: Callable[[], None]) -> None:
        if delay_s < 0:
            raise ClockError(f"call_later(delay_s={delay_s!r}) must be >= 0")
        self.call_at(self.now() + delay_s, fire)

    def run_due(self) -> int:
        fired = 0
        with self.lock:
            while self._timers and self._timers[0][0] <= self.now():
                _, _, fire = heapq.heappop(self._timers)
                fire()
                fired += 1
        return fired

    # -- waiting -----------------------------------------------------------------------------
    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` scenario seconds (the world is released meanwhile; timers fire on time)."""
        if seconds < 0:
            raise ClockError(f"sleep(seconds={seconds!r}) must be >= 0")
        until = self.now() + seconds
        while True:
            self.run_due()
            left = until - self.now()
            if left <= 0:
                return
            self._wait(left)

    def jump(self, to_s: float) -> None:
        """Wait until ``to_s``, until the world changes, or ``JUMP_S`` at most: real time cannot be skipped,
        so whoever jumps looks again soon (the run loop steps the candidate; a stream checks its queue)."""
        self.run_due()
        left = min(to_s - self.now(), JUMP_S)
        if left > 0:
            self._wait(left)
            self.run_due()

    def wait(self, seconds: float) -> bool:
        """Like ``jump(now() + seconds)``; True when the world changed before the time was up."""
        self.run_due()
        changed = self._wait(max(0.0, seconds)) if seconds > 0 else False
        self.run_due()
        return changed

    def _wait(self, scenario_s: float) -> bool:
        self._check()
        due = self.next_deadline()
        if due is not None:
            scenario_s = min(scenario_s, max(0.0, due - self.now()))
        me = threading.get_ident()
        with self._parked_lock:
            self._parked[me] = self.now() + scenario_s
        try:
            changed = self.lock.wait(self.real_s(scenario_s))
        finally:
            with self._parked_lock:
                self._parked.pop(me, None)
        self._check()
        return changed

    def _check(self) -> None:
        if self._stopped:
            raise ClockStopped("the run is over")
        cancelled: threading.Event | None = getattr(self._local, "cancelled", None)
        if cancelled is not None and cancelled.is_set():
            raise ClockStopped("the reader went away")

    @contextlib.contextmanager
    def cancellable(self, cancelled: threading.Event) -> Iterator[None]:
        """Waits of this thread inside the block raise ``ClockStopped`` once ``cancelled`` is set (a
        stream whose client went away must stop waiting for its next event)."""
        previous = getattr(self._local, "cancelled", None)
        self._local.cancelled = cancelled
        try:
            yield
        finally:
            self._local.cancelled = previous

    def stop(self) -> None:
        """The run is over: every wait on this clock, present or future, raises ``ClockStopped``."""
        self._stopped = True
        self.lock.notify()
