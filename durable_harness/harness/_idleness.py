"""Whether a candidate process that takes its time from the harness is idle, and its clock service.

A candidate that answers ``GET /health`` with ``"clock": "harness"`` lets the run's time pass only
by waiting on the harness: a request (its answer), a stream (its next event), or its own wait on
the clock service (``GET /wait?until=<the run's time>`` or ``?for=<seconds>``); and it computes only right after the
harness delivered something to it. So the harness knows when it is idle, and skips the real time
that would pass before anything is due (``RealTimeClock.advance_to``), instead of sleeping it out.

It is *busy* from anything delivered to it (an answer, a stream's chunk, the end of a wait, a
``POST`` of the control API) until it makes its next request, or says it waits for what is in
flight (``POST /idle``: a stream reader says so before it blocks for the next event, with how many
bytes of streamed answers it has read, ``received=N``: while more were sent to it than it read, the
next event is in its buffer, and while none of its streams is open, its read will not wait: it is
not idle then). A wait with
``wake=1`` also ends when the harness calls its control API (it may have work again). It is *idle*
when it is not busy and every request of it in flight waits on the clock (a stream for its next
event, a lost response for its timeout, its own wait): none is being worked on, and no stream has a
chunk on its way. A candidate that never says it takes the harness's time is never idle, and its
run keeps the compressed real time.

Everything here runs under the world's lock.
"""

from __future__ import annotations

import threading
from typing import Any

from durable_harness.harness._realtime import RealTimeClock

__all__ = ["CLOCK_HOST", "Idleness"]

CLOCK_HOST = "harness-clock"  # the clock service's host among a worker's loopback servers
MAX_WAIT_S = 3600.0  # scenario seconds one wait may ask for


class Idleness:
    """One candidate process's idleness, as its loopback servers see its requests."""

    def __init__(self, clock: RealTimeClock) -> None:
        self._clock = clock
        self.declared = False  # its GET /health said "clock": "harness"
        self.busy = True
        self._working: dict[int, int] = {}  # thread -> requests (or stream reads) of it in progress there
        self._streams = 0  # its streamed answers still open
        self._pulling = 0  # of those, the ones whose next chunk a thread is reading
        self._calls = 0  # calls of its control API so far: a wait with ``wake=1`` ends at the next
        self.sent = 0  # bytes of streamed answers delivered to it so far

    def started(self) -> None:
        """A (re)start: a new process, busy until its first request, which has read none of the streamed
        bytes (it counts its own from nought) and has not said whose time it takes yet."""
        self.declared, self.busy, self.sent = False, True, 0

    def declare(self, harness_clock: bool) -> None:
        """What its health answer said: it takes its time from the harness, or not."""
        self.declared = harness_clock

    def begin(self, *, request: bool = True) -> None:
        """A thread starts working on one of its requests (``request``: a new one, which says it is done
        computing) or on reading a stream's next chunk."""
        me = threading.get_ident()
        self._working[me] = self._working.get(me, 0) + 1
        if request:
            self.busy = False

    def end(self) -> None:
        me = threading.get_ident()
        left = self._working.get(me, 0) - 1
        if left > 0:
            self._working[me] = left
        else:
            self._working.pop(me, None)

    def delivered(self) -> None:
        """Something reached it: it computes until its next request or ``POST /idle``."""
        self.busy = True

    def called(self, *, work: bool) -> None:
        """The harness calls its control API: the end of its waits that asked to be woken so (it may
        look for work again, as after any call); ``work`` (a job, a cancel, a webhook: a POST), busy."""
        self.busy = self.busy or work
        self._calls += 1

    def stream_opened(self) -> None:
        self._streams += 1

    def stream_closed(self) -> None:
        self._streams = max(0, self._streams - 1)

    def pulling(self, delta: int) -> None:
        self._pulling += delta

    def idle(self) -> bool:
        return (self.declared and not self.busy and self._pulling == self._streams
                and all(self._clock.parked(thread) for thread in self._working))

    # -- the clock service: GET /now, GET /wait?until=S, POST /idle ----------------------------
    def serve(self, method: str, path: str, query: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """One request to the clock service: (status, JSON answer)."""
        if method == "POST" and path == "/idle":
            received = query.get("received")
            if self._streams == 0 or (received is not None and (not received.isdigit() or int(received) < self.sent)):
                # no stream of it is open (its read will not wait), or it has more to read than it did
                return 200, {"now": self._clock.now(), "idle": False, "sent": self.sent}
            self.busy = False
            return 200, {"now": self._clock.now(), "idle": True, "sent": self.sent}
        if method == "GET" and path == "/now":
            return 200, {"now": self._clock.now()}
        if method == "GET" and path == "/wait":
            try:
                until = float(query["until"]) if "until" in query else self._clock.now() + float(query.get("for", ""))
            except ValueError:
                return 400, {"error": f"until={query.get('until')!r}, for={query.get('for')!r}: give the run's time to "
                                      "wait until (until=S), or how long to wait (for=S), in scenario seconds"}
            until = min(until, self._clock.now() + MAX_WAIT_S)
            calls = self._calls if query.get("wake") == "1" else None
            self.begin()
            try:
                while self._clock.now() < until and (calls is None or self._calls == calls):
                    self._clock.wait(until - self._clock.now())
            finally:
                self.end()
                self.delivered()
            return 200, {"now": self._clock.now()}
        return 404, {"error": f"{method} {path}: the clock service has GET /now, GET /wait?until=S|for=S[&wake=1] and "
                              "POST /idle[?received=N]"}

