"""The port a candidate process is told to listen on (``CANDIDATE_LISTEN``), and whether another
process took it from under it.

The candidate binds the port itself, so the harness can only name a port that is free when it
looks: between that look and the candidate's bind, any other process may take it. A port the
kernel hands out (``bind(('127.0.0.1', 0))``) comes from the ephemeral range, which every outgoing
connection and every ``bind(0)`` on the machine draws from as well (several harnesses side by
side, a test suite on every core, the fakes' own loopback servers): under load, one in a few
hundred starts lost its port that way, and the candidate died with "address already in use".

Harnesses side by side on one machine (pytest workers, ``run -j``, two CI jobs) also keep out of
each other's way: a port is named only once the harness holds a lock on it (an ``flock`` on a file
named for it in a folder of the user's, released when its candidate moves to another port or the
run ends, or by the kernel when the harness dies), and a port another harness holds is not drawn.

So the port is drawn below the ephemeral range, where the kernel never hands one out on its own
(only a process that names it could take it), from the operating system's entropy (it is not part
of the simulated world: no history holds it), and tried before it is named. When a candidate
still exits at start and its port is taken by then, the start is the harness's loss, not the
candidate's fault: the driver starts it again on another port (``lost``).

A candidate that does not exit when its bind fails (a framework whose other threads keep the
process up) leaves the port to whoever took it, and if that is another harness's candidate it
answers ``GET /health`` in its place: the run would drive a stranger in another world. Every start
carries an opaque ``HARNESS_START_ID`` in its environment; once the port answers, the driver looks
(on Linux, through ``/proc``) at which processes hold the socket listening there
(``held_by_another``): one started with another id is another harness's candidate, and the start is
the harness's loss again. Where the holder cannot be seen (another user's process, another OS), the
answer stands.
"""

from __future__ import annotations

import atexit
import os
import random
import socket
import tempfile
from pathlib import Path
from typing import IO

__all__ = ["START_VARIABLE", "held_by_another", "listen_port", "lost", "release", "start_id"]

_HOST = "127.0.0.1"
_LOWEST = 20000  # below it, well-known services of a machine may listen
_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_DEFAULT_EPHEMERAL = 32768  # Linux's default start of the ephemeral range
_TRIES = 64
_draw = random.SystemRandom()  # no seed: which free port a candidate gets is not part of a run
START_VARIABLE = "HARNESS_START_ID"
_LEASES: dict[int, IO[str]] = {}  # the ports this process holds, by port: their lock files, open


def _lease_dir() -> Path:
    return Path(tempfile.gettempdir()) / f"durable-harness-ports-{os.getuid()}"


def _lease(port: int) -> bool:
    """Hold ``port`` against the other harnesses of this machine; False when one of them holds it."""
    import fcntl

    if port in _LEASES:
        return False
    try:
        folder = _lease_dir()
        folder.mkdir(mode=0o700, exist_ok=True)
        handle = open(folder / f"{port}.lock", "a", encoding="utf-8")
    except OSError:  # no folder to hold it in: the port as drawn (the look after the start still holds)
        return True
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return False
    _LEASES[port] = handle
    return True


def release(port: int) -> None:
    """Let the other harnesses have ``port`` again (a no-op for a port this process does not hold)."""
    handle = _LEASES.pop(port, None)
    if handle is not None:
        handle.close()


@atexit.register
def _release_all() -> None:
    """At the process's end, whatever it still holds (the kernel would release it; the files are closed)."""
    for port in list(_LEASES):
        release(port)
_PROC = Path("/proc")
_LISTEN = "0A"  # the TCP state LISTEN in /proc/net/tcp


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
            if _free(port) and _lease(port):
                return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:  # no room below: the kernel's choice
        sock.bind((_HOST, 0))
        return int(sock.getsockname()[1])


def lost(port: int) -> bool:
    """Whether ``port`` is held by some process now (the candidate that was to bind it is dead)."""
    return not _free(port)


def start_id() -> str:
    """An opaque id for one start of a candidate process (not part of the simulated world)."""
    return f"{_draw.getrandbits(64):016x}"


def _listening_inodes(port: int) -> set[str]:
    """The inodes of the TCP sockets listening on ``port`` (any local address), from /proc/net."""
    inodes: set[str] = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (_PROC / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == _LISTEN and fields[1].rpartition(":")[2] == f"{port:04X}":
                inodes.add(fields[9])
    inodes.discard("0")
    return inodes


def _holds(pid: str, links: set[str]) -> bool:
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:  # gone, or another user's
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") in links:
                return True
        except OSError:
            continue
    return False


def _start_of(pid: str) -> str | None:
    try:
        environ = (_PROC / pid / "environ").read_bytes().split(b"\0")
    except OSError:
        return None
    prefix = f"{START_VARIABLE}=".encode()
    return next((item[len(prefix):].decode(errors="replace") for item in environ if item.startswith(prefix)), None)


def held_by_another(port: int, mine: str, first: int | None = None) -> int | None:
    """The pid of a process started by a harness with another start id than ``mine`` that listens
    on ``port``, if one does and no process of this start does; None where it cannot be seen.
    ``first``: a pid to look at first (the candidate's own)."""
    inodes = _listening_inodes(port)
    if not inodes:
        return None
    links = {f"socket:[{inode}]" for inode in inodes}
    pids = [str(first)] if first is not None else []
    try:
        pids += [entry.name for entry in _PROC.iterdir() if entry.name.isdigit() and entry.name not in pids]
    except OSError:
        return None
    other: int | None = None
    for pid in pids:
        if not _holds(pid, links):
            continue
        start = _start_of(pid)
        if start == mine:
            return None
        if start is not None and other is None:
            other = int(pid)
    return other
