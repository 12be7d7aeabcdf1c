"""Who holds the port a candidate was named: ``_ports.held_by_another`` reads /proc (Linux) for the
processes listening there, and names one only when a harness started it with another start id."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from durable_harness.harness.drivers import _ports

# The look at who holds a port reads /proc (Linux); the locks between harnesses need no /proc.
needs_proc = pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads /proc/net/tcp (Linux)")

_LISTEN = "import socket, sys, time; s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(1); " \
          "print('up', flush=True); time.sleep(60)"


@pytest.fixture
def listener() -> Iterator[object]:
    started: list[subprocess.Popen[str]] = []

    def start(port: int, start_id: str | None) -> subprocess.Popen[str]:
        env = {k: v for k, v in os.environ.items() if k != _ports.START_VARIABLE}
        if start_id is not None:
            env[_ports.START_VARIABLE] = start_id
        child = subprocess.Popen([sys.executable, "-c", _LISTEN, str(port)], env=env, stdout=subprocess.PIPE, text=True)
        started.append(child)
        assert child.stdout is not None and child.stdout.readline().strip() == "up"
        return child

    yield start
    for child in started:
        child.kill()
        child.wait()
        if child.stdout is not None:
            child.stdout.close()


@needs_proc
def test_a_port_nobody_listens_on_is_held_by_nobody() -> None:
    assert _ports.held_by_another(_ports.listen_port(), "mine") is None


@needs_proc
def test_a_process_another_harness_started_is_named(listener: object) -> None:
    port = _ports.listen_port()
    child = listener(port, "theirs")  # type: ignore[operator]
    assert _ports.held_by_another(port, "mine") == child.pid
    assert _ports.held_by_another(port, "mine", first=os.getpid()) == child.pid


@needs_proc
def test_a_process_of_this_start_is_not_another(listener: object) -> None:
    port = _ports.listen_port()
    child = listener(port, "mine")  # type: ignore[operator]
    assert _ports.held_by_another(port, "mine") is None
    assert _ports.held_by_another(port, "mine", first=child.pid) is None


@needs_proc
def test_a_process_no_harness_started_is_not_named(listener: object) -> None:
    """A holder without a start id (a service of the machine, a container's proxy): the answer stands."""
    port = _ports.listen_port()
    listener(port, None)  # type: ignore[operator]
    assert _ports.held_by_another(port, "mine") is None


@needs_proc
def test_a_socket_that_only_connects_is_not_a_listener(listener: object) -> None:
    port = _ports.listen_port()
    listener(port, "mine")  # type: ignore[operator]
    with socket.create_connection(("127.0.0.1", port)):
        time.sleep(0.05)
        assert _ports._listening_inodes(port) and len(_ports._listening_inodes(port)) == 1


_HOLD = ("import fcntl, sys, time; h = open(sys.argv[1], 'a'); fcntl.flock(h, fcntl.LOCK_EX); print('held', flush=True); "
         "time.sleep(60)")


def test_a_port_another_harness_holds_is_not_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Harnesses side by side: the one that drew a port first holds it; the other draws another."""
    first = _ports.listen_port()
    _ports.release(first)
    _ports._lease_dir().mkdir(mode=0o700, exist_ok=True)
    other = subprocess.Popen([sys.executable, "-c", _HOLD, str(_ports._lease_dir() / f"{first}.lock")],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "held"
        draws = iter([first, first + 1, first + 2, first + 3])
        monkeypatch.setattr(_ports._draw, "randrange", lambda *_: next(draws))
        named = _ports.listen_port()
        assert named != first
        _ports.release(named)
    finally:
        other.kill()
        other.wait()
        if other.stdout is not None:
            other.stdout.close()
    assert _ports._lease(first), "the port was not free again once the other harness was gone"
    _ports.release(first)


def test_a_port_this_process_holds_is_not_named_twice() -> None:
    port = _ports.listen_port()
    try:
        assert not _ports._lease(port)
    finally:
        _ports.release(port)
    assert _ports._lease(port)
    _ports.release(port)
    _ports.release(port)  # a port not held: nothing
