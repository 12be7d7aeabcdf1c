"""The zygote: one fresh Python process per harness process, from which every instance of a Python
candidate is forked.

Why not fork the harness itself: its memory holds the run (the fakes' ground truth, the nemesis's
plan, the history) and a candidate must not read what it is being judged on; its environment holds
the CI runner's secrets; it may have threads (a child forked from a threaded process can inherit a
lock held forever); and its heap is large (copy-on-write makes every fork pay for it). The zygote
is none of that: it is started once, lazily, with a clean environment (``_environ``) and a fixed
hash seed (``PYTHONHASHSEED=0``: a candidate that iterates a set behaves the same in every run),
imports the openai SDK and warms it once (``_warm``: its lazily loaded parts, its models, a call of
every agents method on a canned transport), and then does only what it is asked,
one request at a time, on its pipe:

* ``spawn``: fork an instance (``_child``; a probe of a candidate's code, or a candidate instance)
  and pass the harness its end of the instance's own pipe (a socket, through ``SCM_RIGHTS``);
* ``reap``: wait for an instance the harness has killed, and say how it ended and its CPU time.

* ``connect``: open another pipe to the zygote and pass the harness its end. A sweep's crash
  points are forks of the harness's process (``_sweep_fork``) that run beside it; each fork talks
  to its parent's zygote on a pipe of its own (``connection`` before the fork,
  ``share_with_this_fork`` in it), so that a fork killed in the middle of an exchange breaks only
  its own pipe, never the parent's.

The zygote is started through the process supervisor (its own process group, registered with the
watchdog, so that it and every instance die with the harness however the harness ends) and ends
when its pipe closes. It never runs candidate code itself: only its forks do.
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import select
import shutil
import signal
import socket
import sys
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from durable_harness.harness._errors import HarnessError
from durable_harness.harness.candidate._environ import candidate_environ
from durable_harness.harness.candidate._pipe import HungUp, PipeGarbage, Silent, recv, send
from durable_harness.harness.candidate._warm import warm_sdk

__all__ = ["START_TIMEOUT_S", "Zygote", "instances_cpu_s", "share_with_this_fork", "zygote"]

START_TIMEOUT_S = 120.0  # a fresh interpreter importing the SDK, on a loaded machine
_ANSWER_TIMEOUT_S = 60.0
_BOOT = "import sys; sys.path[:0] = __import__('json').loads(sys.argv[2]); " \
        "from durable_harness.harness.candidate._zygote import main; main(int(sys.argv[1]))"


class Zygote:
    """The harness's handle on its zygote process (see the module's doc)."""

    def __init__(self) -> None:
        from durable_harness.harness._supervisor import spawn

        self._lock = threading.Lock()
        self._folder = Path(tempfile.mkdtemp(prefix="durable-harness-zygote-"))
        self.shared = False  # a fork's handle on its parent's zygote: the parent owns the process
        ours, theirs = socket.socketpair()
        paths = [p for p in sys.path if p]
        self.environ = env = zygote_environ()
        try:
            self._process = spawn([sys.executable, "-c", _BOOT, str(theirs.fileno()), json.dumps(paths)], env,
                                  self._folder / "zygote.log", cwd=Path.cwd(), pass_fds=(theirs.fileno(),))
        except OSError as err:
            ours.close()
            raise HarnessError(f"the harness could not start the process its candidates are forked from: {err}") from err
        finally:
            theirs.close()
        self._sock = ours
        try:
            hello, _ = recv(ours, START_TIMEOUT_S)
        except (Silent, HungUp, PipeGarbage, OSError) as err:
            self.close()
            raise HarnessError(f"the process the harness forks candidates from did not start ({err}): "
                               + " | ".join(self._process.last_lines())) from None
        self.pid = int(hello.get("pid") or 0)
        self.owner = os.getpid()
        self.instances_cpu_s = 0.0  # CPU time of the instances reaped so far (for benchmarks)

    def spawn(self, request: Mapping[str, Any]) -> tuple[int, socket.socket]:
        """Fork an instance for ``request`` (``_child.run_child`` reads it); its pid and the harness's
        end of its pipe."""
        with self._lock:
            answer = self._ask({**request, "k": "spawn"})
            return int(answer["pid"]), self._received_pipe(f"instance {answer.get('pid')}")

    def reap(self, pid: int) -> tuple[int | None, float]:
        """Wait for instance ``pid`` (already killed, or dead): its wait status and CPU seconds."""
        with self._lock:
            answer = self._ask({"k": "reap", "pid": pid})
        status = answer.get("status")
        cpu_s = float(answer.get("cpu_s") or 0.0)
        self.instances_cpu_s += cpu_s
        return (int(status) if isinstance(status, int) else None), cpu_s

    def connection(self) -> socket.socket:
        """Another pipe to the zygote, for a fork of this process to make its own (see the module's doc)."""
        with self._lock:
            self._ask({"k": "connect"})
            return self._received_pipe("a new pipe")

    def share_with_this_fork(self, pipe: socket.socket) -> None:
        """In a fork of the harness: talk to the parent's zygote on ``pipe`` (from ``connection``),
        leave the parent's pipe to the parent, and count the instances reaped from here on."""
        self._sock.close()  # this fork's copy only: the parent's end stays open in the parent
        self._sock = pipe
        self._lock = threading.Lock()
        self.owner = os.getpid()
        self.shared = True
        self.instances_cpu_s = 0.0

    def _received_pipe(self, what: str) -> socket.socket:
        try:
            _, fds, _, _ = socket.recv_fds(self._sock, 1, 1)
        except OSError as err:
            raise self._broken(f"no pipe came with {what}: {err}") from None
        if len(fds) != 1:
            raise self._broken(f"no pipe came with {what}")
        return socket.socket(fileno=fds[0])

    def _ask(self, request: Mapping[str, Any]) -> dict[str, Any]:
        try:
            send(self._sock, request)
            answer, _ = recv(self._sock, _ANSWER_TIMEOUT_S)
        except (Silent, HungUp, PipeGarbage, OSError) as err:
            raise self._broken(str(err)) from None
        if answer.get("k") == "failed":
            raise self._broken(str(answer.get("message")))
        return answer

    def _broken(self, why: str) -> HarnessError:
        _ZYGOTE.clear()  # the next run starts another
        self.close()
        return HarnessError(f"the process the harness forks candidates from failed: {why}")

    def close(self) -> None:
        try:
            self._sock.close()
        except OSError:
            pass
        if self.shared:  # the parent's: it stops it
            return
        self._process.kill()
        shutil.rmtree(self._folder, ignore_errors=True)


_ZYGOTE: list[Zygote] = []
_START = threading.Lock()


def zygote_environ() -> dict[str, str]:
    """The environment a zygote starts with, as the harness's environment is now."""
    return candidate_environ(os.environ, {"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"})


def zygote() -> Zygote:
    """This process's zygote, started at first use (a forked harness gets its own), and again when
    what it would pass on of the environment changed (``DH_PASS_ENV`` and what it names)."""
    with _START:
        if _ZYGOTE:
            one = _ZYGOTE[0]
            if one.owner == os.getpid() and (one.shared or one._process.alive()) and one.environ == zygote_environ():
                return one
            if one.owner == os.getpid():
                _REAPED[0] += one.instances_cpu_s
                one.close()
        _ZYGOTE[:] = [Zygote()]
        return _ZYGOTE[0]


def share_with_this_fork(pipe: socket.socket) -> None:
    """In a fork of the harness (a sweep's crash point): go on with the parent's zygote, on ``pipe``
    (``Zygote.connection``, asked by the parent before the fork)."""
    _REAPED[0] = 0.0  # the parent's count; this fork counts its own
    _ZYGOTE[0].share_with_this_fork(pipe)


def instances_cpu_s() -> float:
    """CPU seconds of every candidate instance this process's zygotes have reaped (the harness's
    own CPU time does not count them: they are the zygote's children, not the harness's)."""
    return _REAPED[0] + sum(z.instances_cpu_s for z in _ZYGOTE if z.owner == os.getpid())


_REAPED = [0.0]  # of zygotes already replaced


def _close_at_exit() -> None:
    for one in _ZYGOTE:
        if one.owner == os.getpid():
            one.close()


atexit.register(_close_at_exit)


# -- the zygote's side ---------------------------------------------------------------------------
def main(fd: int) -> None:
    """The zygote process: warm up, then serve requests on its pipes until the harness's closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the harness's: it kills us
    sock = socket.socket(fileno=fd)
    warm_sdk()
    _import_bundled()

    gc.collect()
    gc.freeze()  # what is here now is shared with every fork: no collection of ours touches it again
    send(sock, {"k": "ready", "pid": os.getpid()})
    pipes = [sock]  # the harness's first pipe, then one per fork of the harness that asked
    while True:
        for ready in select.select(pipes, [], [])[0]:
            if not _serve(ready, pipes):
                if ready is sock:  # the harness is gone
                    os._exit(0)
                pipes.remove(ready)  # a fork of it is gone: its pipe only
                ready.close()


def _serve(sock: socket.socket, pipes: list[socket.socket]) -> bool:
    """Answer one request on ``sock``; False when that pipe is broken or closed."""
    try:
        header, _ = recv(sock)
    except (HungUp, PipeGarbage, OSError):
        return False
    try:
        if header["k"] == "spawn":
            _spawn(sock, header, pipes)
        elif header["k"] == "reap":
            _reap(sock, int(header["pid"]))
        elif header["k"] == "connect":
            ours, theirs = socket.socketpair()
            pipes.append(ours)
            send(sock, {"k": "connected"})
            socket.send_fds(sock, [b"F"], [theirs.fileno()])
            theirs.close()
        else:
            send(sock, {"k": "failed", "message": f"unknown request {header['k']!r}"})
    except (HungUp, OSError):
        return False
    except Exception as err:  # a bug of ours: say it, and go on serving
        send(sock, {"k": "failed", "message": f"{type(err).__name__}: {err}"})
    return True


def _spawn(sock: socket.socket, request: dict[str, Any], pipes: list[socket.socket]) -> None:
    from durable_harness.harness.candidate._child import run_child

    ours, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:  # the instance: it never comes back from here
        for pipe in pipes:
            pipe.close()
        ours.close()
        run_child(theirs, request)
    theirs.close()
    send(sock, {"k": "spawned", "pid": pid})
    socket.send_fds(sock, [b"F"], [ours.fileno()])
    ours.close()


def _reap(sock: socket.socket, pid: int) -> None:
    try:
        _, status, usage = os.wait4(pid, 0)
    except ChildProcessError:
        send(sock, {"k": "reaped", "pid": pid, "status": None, "cpu_s": 0.0})
        return
    send(sock, {"k": "reaped", "pid": pid, "status": status, "cpu_s": usage.ru_utime + usage.ru_stime})


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
