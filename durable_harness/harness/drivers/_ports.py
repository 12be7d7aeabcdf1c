"""The port a candidate process is told to listen on (``CANDIDATE_LISTEN``), and whether another
process took it from under it.

The candidate binds the port itself, so the harness can only name a port that is free when it
looks: between that look and the candidate's bind, any other process may take it. A port the
kernel hands out (``bind(('127.0.0.1', 0))``) comes from the ephemeral range, which every outgoing
connection and every ``bind(0)`` on the machine draws from as well (several harnesses side by
side, a test suite on every core, the fakes' own loopback servers): under load, one in a few
hundred starts lost its port that way, and the candidate died with "address already in use".

So the port is drawn below the ephemeral range, where the kernel never hands one out on its own
(only a process that names it could take it), from the operating system's entropy (it is not part
of the simulated world: no history holds it), and tried before it is named. When a candidate
still exits at start and its port is taken by then, the start is the harness's loss, not the
candidate's fault: the driver starts it again on another port (``lost``).
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

__all__ = ["listen_port", "lost"]

_HOST = "127.0.0.1"
_LOWEST = 20000  # below it, well-known services of a machine may listen
_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_DEFAULT_EPHEMERAL = 32768  # Linux's default start of the ephemeral range
_TRIES = 64
_draw = random.SystemRandom()  # no seed: which free port a candidate gets is not part of a run


def _ephemeral_start() -> int:
    try:
        return int(_RANGE_FILE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return _DEFAULT_EPHEMERAL


def _free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((_HOST, port))
        except OSError:
            return False
    return True


def listen_port() -> int:
    """A port free now on 127.0.0.1, below the ephemeral range when there is room there."""
    top = _ephemeral_start()
    if top - _LOWEST >= 1000:
        for _ in range(_TRIES):
            port = _draw.randrange(_LOWEST, top)
            if _free(port):
                return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:  # no room below: the kernel's choice
        sock.bind((_HOST, 0))
        return int(sock.getsockname()[1])


def lost(port: int) -> bool:
    """Whether ``port`` is held by some process now (the candidate that was to bind it is dead)."""
    return not _free(port)
