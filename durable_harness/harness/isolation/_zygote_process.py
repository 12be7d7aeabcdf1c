"""The zygote process itself (see ``_zygote`` for what it is and how the harness holds it).

It warms the SDK, imports what every instance runs and the libraries named to it (``_preload``),
freezes its heap, says it is ready, and then serves its pipes one request at a time: the pipe of the
harness process that started it (the owner: when that pipe closes, the zygote ends) and pipes it
handed out (``connect``). Another harness process that shares it (``DH_ZYGOTE``) connects to its
listening socket and is served by a zygote of its own, forked from this one at once (warm already: a
few milliseconds, not a second), which dies with this one and ends when that harness process does:
harness processes never wait on each other's forks. A connection is greeted with the zygote's key
(``_zygote.zygote_key``): the harness process compares it with its own and uses the zygote only if
they are equal.

An instance is forked with the requester's working directory and search path (``cwd`` and
``paths`` of the ``spawn`` request), so that a zygote serves every harness process of the same
interpreter and environment alike, wherever each was started.
"""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import socket
import sys
from typing import Any

from durable_harness.harness.isolation._child import _die_with_the_zygote, run_child
from durable_harness.harness.isolation._pipe import HungUp, PipeGarbage, ZygoteKind, recv, send
from durable_harness.harness.isolation._preload import preload
from durable_harness.harness.isolation._warm import warm_sdk

__all__ = ["main"]

_BASE_PATH: list[str] = []  # the search path Python gave this process (what an instance keeps after the requester's)
_LISTENER: list[socket.socket] = []


def main(fd: int, listen_fd: int = -1, key: str = "", preloaded: str = "[]") -> None:
    """The zygote process: warm up, then serve requests on its pipes until the harness's closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the harness's: it kills us
    sock = socket.socket(fileno=fd)
    started_with = json.loads(sys.argv[2]) if len(sys.argv) > 2 else []
    _BASE_PATH[:] = sys.path[len(started_with):]
    warm_sdk()
    _import_bundled()
    preload(json.loads(preloaded))  # libraries every instance would import again (DH_PRELOAD)

    gc.collect()
    gc.freeze()  # what is here now is shared with every fork: no collection of ours touches it again
    send(sock, {"k": ZygoteKind.READY, "pid": os.getpid(), "key": key})
    if listen_fd >= 0:
        _LISTENER.append(socket.socket(fileno=listen_fd))
    _loop(sock, key)


def _loop(sock: socket.socket, key: str) -> None:
    """Serve ``sock`` (the owner's pipe: when it closes, this process ends), the pipes handed out,
    and the listening socket, if this process has it."""
    pipes = [sock]
    dedicated: set[int] = set()
    while True:
        for ready in select.select([*pipes, *_LISTENER], [], [])[0]:
            if ready in _LISTENER:
                _accept(ready, pipes, dedicated, key)
            elif not _serve(ready, pipes):
                if ready is sock:  # the owner is gone
                    os._exit(0)
                pipes.remove(ready)  # a fork of the owner is gone: its pipe only
                ready.close()
        for pid in list(dedicated):  # a dedicated zygote whose harness process is gone has ended
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    dedicated.discard(pid)
            except ChildProcessError:
                dedicated.discard(pid)


def _accept(listener: socket.socket, pipes: list[socket.socket], dedicated: set[int], key: str) -> None:
    """Another harness process connected: a zygote of its own, forked from this one (warm already,
    in a few milliseconds), serves it, so that harness processes never wait on each other's forks."""
    try:
        conn, _ = listener.accept()
    except OSError:
        return
    pid = os.fork()
    if pid == 0:  # the dedicated zygote: it dies with this one, and ends when its harness process does
        for pipe in [*pipes, *_LISTENER]:
            pipe.close()
        _LISTENER.clear()
        _die_with_the_zygote()  # its parent is the zygote it was forked from, as an instance's is
        try:
            send(conn, {"k": ZygoteKind.READY, "pid": os.getpid(), "key": key})
            _loop(conn, key)
        finally:
            os._exit(0)
    conn.close()
    dedicated.add(pid)


def _serve(sock: socket.socket, pipes: list[socket.socket]) -> bool:
    """Answer one request on ``sock``; False when that pipe is broken or closed."""
    try:
        header, _ = recv(sock)
    except (HungUp, PipeGarbage, OSError):
        return False
    try:
        if header["k"] == ZygoteKind.SPAWN:
            _spawn(sock, header, pipes)
        elif header["k"] == ZygoteKind.REAP:
            _reap(sock, int(header["pid"]))
        elif header["k"] == ZygoteKind.CONNECT:
            ours, theirs = socket.socketpair()
            pipes.append(ours)
            send(sock, {"k": ZygoteKind.CONNECTED})
            socket.send_fds(sock, [b"F"], [theirs.fileno()])
            theirs.close()
        else:
            send(sock, {"k": ZygoteKind.FAILED, "message": f"unknown request {header['k']!r}"})
    except (HungUp, OSError):
        return False
    except Exception as err:  # a bug of ours: say it, and go on serving
        send(sock, {"k": ZygoteKind.FAILED, "message": f"{type(err).__name__}: {err}"})
    return True


def _spawn(sock: socket.socket, request: dict[str, Any], pipes: list[socket.socket]) -> None:
    ours, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:  # the instance: it never comes back from here
        for pipe in [*pipes, *_LISTENER]:
            pipe.close()
        ours.close()
        _where(request)
        run_child(theirs, request)
    theirs.close()
    send(sock, {"k": ZygoteKind.SPAWNED, "pid": pid})
    socket.send_fds(sock, [b"F"], [ours.fileno()])
    ours.close()


def _where(request: dict[str, Any]) -> None:
    """In the instance: the requester's working directory and search path (then the zygote's own
    entries), as if it had been forked from a zygote started where the requester is."""
    paths = request.get("paths")
    if isinstance(paths, list) and all(isinstance(p, str) for p in paths):
        sys.path[:] = [*paths, *(p for p in _BASE_PATH if p not in paths)]
    cwd = request.get("cwd")
    if isinstance(cwd, str):
        try:
            os.chdir(cwd)
        except OSError:  # gone meanwhile: the instance stays where the zygote is
            pass


def _reap(sock: socket.socket, pid: int) -> None:
    try:
        _, status, usage = os.wait4(pid, 0)
    except ChildProcessError:
        send(sock, {"k": ZygoteKind.REAPED, "pid": pid, "status": None, "cpu_s": 0.0})
        return
    send(sock, {"k": ZygoteKind.REAPED, "pid": pid, "status": status, "cpu_s": usage.ru_utime + usage.ru_stime})


def _import_bundled() -> None:
    """What every instance runs (its side of the pipe, its ``env``, candidate resolution) and the
    candidates bundled with the harness (trusted code of its own, as the SDK is): imported once
    here, not after every fork. A user's candidate is imported by its instance, never here."""
    import sqlite3  # noqa: F401

    import durable_harness.harness.candidate._env  # noqa: F401
    from durable_harness.harness._libc import libc
    from durable_harness.harness.candidate._spec import keep_entry_points

    libc()  # ctypes and the C library's handle, which every instance uses at its start
    keep_entry_points()

    import importlib

    for name in ("durable_harness.candidates.reference", "durable_harness.candidates.mutants"):
        try:
            importlib.import_module(name)
        except ImportError:  # a harness installed without its candidates: nothing to import ahead
            continue
