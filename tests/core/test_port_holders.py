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

pytestmark = pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads /proc/net/tcp (Linux)")

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


def test_a_port_nobody_listens_on_is_held_by_nobody() -> None:
    assert _ports.held_by_another(_ports.listen_port(), "mine") is None


def test_a_process_another_harness_started_is_named(listener: object) -> None:
    port = _ports.listen_port()
    child = listener(port, "theirs")  # type: ignore[operator]
    assert _ports.held_by_another(port, "mine") == child.pid
    assert _ports.held_by_another(port, "mine", first=os.getpid()) == child.pid


def test_a_process_of_this_start_is_not_another(listener: object) -> None:
    port = _ports.listen_port()
    child = listener(port, "mine")  # type: ignore[operator]
    assert _ports.held_by_another(port, "mine") is None
    assert _ports.held_by_another(port, "mine", first=child.pid) is None


def test_a_process_no_harness_started_is_not_named(listener: object) -> None:
    """A holder without a start id (a service of the machine, a container's proxy): the answer stands."""
    port = _ports.listen_port()
    listener(port, None)  # type: ignore[operator]
    assert _ports.held_by_another(port, "mine") is None


def test_a_socket_that_only_connects_is_not_a_listener(listener: object) -> None:
    port = _ports.listen_port()
    listener(port, "mine")  # type: ignore[operator]
    with socket.create_connection(("127.0.0.1", port)):
        time.sleep(0.05)
        assert _ports._listening_inodes(port) and len(_ports._listening_inodes(port)) == 1
