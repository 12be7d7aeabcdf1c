"""When a candidate process that takes its time from the harness is idle: not after something was
delivered to it until its next request or its word (``POST /idle``), never while a request of it is
being worked on or a stream of it has a chunk on its way, never with an event in its buffer; and
what a skip may not pass (``RealTimeClock.advance_to``, ``parked_until``)."""

from __future__ import annotations

import threading

from durable_harness.harness._idleness import Idleness
from durable_harness.harness._realtime import RealTimeClock, WorldLock


def _clock() -> RealTimeClock:
    return RealTimeClock(100.0, WorldLock())


def test_a_candidate_that_never_said_so_is_never_idle() -> None:
    idle = Idleness(_clock())
    idle.begin()
    idle.end()
    assert not idle.idle()
    idle.started()
    idle.declare(True)
    assert not idle.idle()  # busy from its start until its first request
    idle.begin()
    idle.end()
    assert idle.idle()


def test_a_delivery_makes_it_busy_until_its_next_request_or_its_word() -> None:
    idle = Idleness(_clock())
    idle.started()
    idle.declare(True)
    idle.begin()
    idle.end()
    idle.delivered()
    assert not idle.idle()
    assert idle.serve("POST", "/idle", {})[1]["idle"] is False  # it reads no stream: its read will not wait
    idle.stream_opened()
    assert idle.serve("POST", "/idle", {"received": "0"})[1]["idle"] is True
    assert idle.idle() is False  # its stream has no reader waiting on the clock yet: a chunk may be on its way
    idle.pulling(1)
    assert idle.idle()
    idle.called(work=False)  # a report: no work for it
    assert idle.idle()
    idle.called(work=True)  # a job, a cancel, a webhook
    assert not idle.idle()


def test_bytes_it_has_not_read_keep_it_busy() -> None:
    idle = Idleness(_clock())
    idle.started()
    idle.declare(True)
    idle.stream_opened()
    idle.pulling(1)
    idle.sent = 120
    assert idle.serve("POST", "/idle", {"received": "80"})[1]["idle"] is False
    assert idle.serve("POST", "/idle", {"received": "oops"})[1]["idle"] is False
    assert not idle.idle()
    assert idle.serve("POST", "/idle", {"received": "120"})[1]["idle"] is True
    assert idle.idle()
    idle.started()  # a restart: the new process has read nothing, and nothing was sent to it yet
    idle.declare(True)
    assert idle.sent == 0 and idle.serve("POST", "/idle", {"received": "0"})[1]["idle"] is True


def test_a_request_being_worked_on_is_not_idleness() -> None:
    clock = RealTimeClock(1.0, WorldLock())  # a scenario second is a real one: no delay of this machine ends the wait
    idle = Idleness(clock)
    idle.started()
    idle.declare(True)
    idle.begin()  # this thread works on its request, not waiting on the clock
    assert not idle.idle()

    def park() -> None:
        with clock.lock:
            clock.wait(5.0)  # a wait on the clock: parked until then, or until the world changes

    waiter = threading.Thread(target=park)
    idle.end()
    before = clock.now()
    waiter.start()
    for _ in range(5000):
        if clock.parked_until() is not None:
            break
        threading.Event().wait(0.001)
    until, after = clock.parked_until(), clock.now()
    assert until is not None and before + 5.0 <= until <= after + 5.0  # parked for 5 s from when it parked
    clock.advance_to(until)  # a skip to what is due wakes the wait
    waiter.join(timeout=10)
    assert not waiter.is_alive() and clock.jumps == 1 and clock.jumped_s > 0
    assert clock.now() >= until


def test_a_wait_ends_at_its_time_and_says_it() -> None:
    clock = _clock()
    idle = Idleness(clock)
    idle.started()
    idle.declare(True)
    status, body = idle.serve("GET", "/wait", {"for": "0.5"})
    assert status == 200 and body["now"] >= 0.5 and idle.busy  # its end is a delivery
    assert idle.serve("GET", "/wait", {"until": "soon"})[0] == 400
    assert idle.serve("GET", "/clock", {})[0] == 404


def test_a_skip_never_goes_back_nor_moves_a_paused_clock() -> None:
    clock = _clock()
    clock.advance_to(-1.0)
    assert clock.jumps == 0
    clock.pause()
    clock.advance_to(100.0)
    assert clock.jumps == 0 and clock.now() < 100.0
    clock.resume()
    clock.advance_to(100.0)
    assert clock.jumps == 1 and clock.now() >= 100.0
