"""Real, compressed time and the world's lock (the process driver's), and the ``cmd:`` candidate spec."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from durable_harness.harness._clock import ClockError, VirtualClock
from durable_harness.harness._realtime import (
    DEFAULT_TIME_SCALE, TIME_SCALE_ENV, CallAbandoned, CallTimeout, ClockStopped, RealTimeClock, WorldLock,
    time_scale,
)
from durable_harness.harness.candidate import CandidateSpecError, candidate_digest, describe_candidate, resolve_candidate
from durable_harness.harness.candidate._command import command_digest


def clock(scale: float = 50.0) -> RealTimeClock:
    return RealTimeClock(scale, WorldLock())


def test_it_has_the_virtual_clocks_interface_and_scenario_time_runs_scale_times_faster() -> None:
    c = clock(50)
    assert isinstance(c, VirtualClock)
    before = time.monotonic()
    start = c.now()
    time.sleep(0.1)
    end = c.now()
    real = time.monotonic() - before
    assert 0.1 * 50 <= end - start <= real * 50 + 1e-6  # 0.1 real s = 5 scenario s (at least; a busy machine)
    assert abs(c.unix() - (c.origin_unix + c.now())) <= 1  # Unix seconds on the run's (compressed) time
    assert abs(c.unix() - time.time()) <= 15  # near the wall clock early on: the stock webhook check agrees
    assert abs(c.datetime().timestamp() - (c.origin_unix + c.now())) <= 1


def test_sleep_waits_the_scaled_time_and_fires_timers_on_the_way() -> None:
    c = clock(50)
    fired: list[float] = []
    c.call_later(1.0, lambda: fired.append(c.now()))
    before = time.monotonic()
    with c.lock:
        c.sleep(5.0)  # 0.1 real seconds
    assert 0.09 <= time.monotonic() - before <= 30.0
    assert len(fired) == 1 and fired[0] >= 1.0


def test_jump_returns_early_when_the_world_changes() -> None:
    c = clock(10)
    threading.Timer(0.05, c.lock.notify).start()
    before = time.monotonic()
    with c.lock:
        c.jump(c.now() + 100.0)  # 10 real seconds, unless the world changes first
    assert time.monotonic() - before < 9.0


def test_a_stopped_clock_and_a_cancelled_wait_raise_clock_stopped() -> None:
    c = clock(10)
    cancelled = threading.Event()
    threading.Timer(0.05, lambda: (cancelled.set(), c.lock.notify())).start()
    with pytest.raises(ClockStopped), c.cancellable(cancelled), c.lock:
        c.sleep(100.0)
    c.stop()
    with pytest.raises(ClockStopped):
        c.jump(c.now() + 1.0)


def test_bad_values_are_refused() -> None:
    with pytest.raises(ClockError, match="scale=0.5"):
        RealTimeClock(0.5, WorldLock())
    with pytest.raises(ClockError, match="seconds=-1"):
        clock().sleep(-1)


def test_time_scale_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TIME_SCALE_ENV, raising=False)
    assert time_scale() == DEFAULT_TIME_SCALE == 10.0
    monkeypatch.setenv(TIME_SCALE_ENV, "5")
    assert time_scale() == 5.0
    monkeypatch.setenv(TIME_SCALE_ENV, "fast")
    with pytest.raises(ValueError, match="DURABLE_HARNESS_TIME_SCALE='fast' must be a number from 1"):
        time_scale()
    with pytest.raises(CandidateSpecError, match="DURABLE_HARNESS_TIME_SCALE='fast'"):
        resolve_candidate("cmd:true")


def test_a_call_made_unlocked_lets_other_threads_into_the_world() -> None:
    lock = WorldLock()
    entered = threading.Event()

    def other() -> None:
        with lock:
            entered.set()

    def call() -> str:
        threading.Thread(target=other).start()
        assert entered.wait(5), "the world stayed locked during the call"
        return "answered"

    with lock, lock:  # held twice: released entirely all the same
        assert lock.call_unlocked(call, 10) == "answered"
    with lock, pytest.raises(CallTimeout):
        lock.call_unlocked(lambda: time.sleep(1), 0.05)
    with pytest.raises(KeyError):
        lock.call_unlocked(lambda: {}["missing"], 5)


def test_a_call_to_a_process_stopped_meanwhile_is_abandoned_at_once() -> None:
    """A pause freezes the process the run's loop is calling (its report waits for its step, and
    the step for the held request): the loop must not wait out the pause, or nobody supervises the
    other workers meanwhile (a dead one stays dead)."""
    lock, stopped, release = WorldLock(), [False], threading.Event()

    def stop_soon() -> None:
        time.sleep(0.05)
        stopped[0] = True
        lock.notify()

    threading.Thread(target=stop_soon).start()
    start = time.monotonic()
    with pytest.raises(CallAbandoned):
        lock.call_unlocked(lambda: release.wait(10), 10, abandon=lambda: stopped[0])
    assert time.monotonic() - start < 5
    release.set()
    assert lock.call_unlocked(lambda: "answered", 5, abandon=lambda: False) == "answered"


@pytest.mark.parametrize(("spec", "message"), [
    ("cmd:", "names no command"),
    ("cmd:   ", "names no command"),
    ("cmd:'unbalanced", "cannot be split"),
    ("cmd:no-such-program-here", "the program 'no-such-program-here' is not on PATH"),
    ("cmd:./no/such/file.sh", "the program './no/such/file.sh' is not an executable file"),
])
def test_a_bad_cmd_spec_says_what_is_wrong_in_one_line(spec: str, message: str) -> None:
    with pytest.raises(CandidateSpecError, match=message) as err:
        resolve_candidate(spec)
    assert "\n" not in str(err.value)


def test_a_process_candidate_is_described_and_digested_by_its_command_and_sources(tmp_path: Path) -> None:
    spec = "cmd:python3 -m durable_harness.candidates.reference.serve"
    assert describe_candidate(spec) == "a process: python3 -m durable_harness.candidates.reference.serve"
    factory = resolve_candidate(spec)
    with pytest.raises(CandidateSpecError, match="is a process"):
        factory(None)
    digest = candidate_digest(spec)
    assert len(digest) == 64 and digest != candidate_digest("cmd:python3 -m durable_harness.candidates.reference.serve --x")
    (tmp_path / "server.js").write_text("require('./plane')\n")
    (tmp_path / "plane.js").write_text("// v1\n")
    before = command_digest(f"cmd:true {tmp_path / 'server.js'}")
    (tmp_path / "plane.js").write_text("// v2\n")  # a file beside the script changed: other code
    assert command_digest(f"cmd:true {tmp_path / 'server.js'}") != before


def test_two_candidates_of_one_package_have_different_digests() -> None:
    """The reference and each mutant share a package: the factory named is part of the digest."""
    digests = {spec: candidate_digest(spec) for spec in ("reference", "mutant:blind-retry", "mutant:no-lease")}
    assert len(set(digests.values())) == 3, digests
    assert candidate_digest("reference") == digests["reference"]


def test_the_runs_time_stands_still_while_paused() -> None:
    """A candidate restarting takes no scenario time, as a restart in-process takes none."""
    c = clock(100)
    fired: list[float] = []
    c.call_later(1.0, lambda: fired.append(c.now()))
    c.pause()
    held = c.now()
    time.sleep(0.05)  # 5 scenario seconds, had time run
    assert c.paused and c.now() == held and c.run_due() == 0 and fired == []
    resumed = time.monotonic()
    c.resume()
    assert not c.paused
    with c.lock:
        c.sleep(2.0)
    assert fired and 2.0 <= c.now() - held <= (time.monotonic() - resumed) * 100 + 1e-6  # the pause did not count
