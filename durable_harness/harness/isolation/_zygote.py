"""The zygote: one fresh Python process, from which every instance of a Python candidate is forked.

Why not fork the harness itself: its memory holds the run (the fakes' ground truth, the nemesis's
plan, the history) and a candidate must not read what it is being judged on; its environment holds
the CI runner's secrets; it may have threads (a child forked from a threaded process can inherit a
lock held forever); and its heap is large (copy-on-write makes every fork pay for it). The zygote
is none of that: it is started once, lazily, with a clean environment (``_environ``) and a fixed
hash seed (``PYTHONHASHSEED=0``: a candidate that iterates a set behaves the same in every run),
imports the openai SDK and warms it once (``_warm``: its lazily loaded parts, its models, a call of
every agents method on a canned transport), imports the libraries named to it (``_preload``:
SQLAlchemy's ORM by default), and then does only what it is asked,
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
when its pipe closes. It never runs candidate code itself: only its forks do (``_zygote_process``
is its side).

**Shared.** Starting a zygote costs more than a second of CPU (the SDK's import and warm-up), and a
run spread over processes started a zygote in each: ``run -j N``'s workers, pytest-xdist's
workers, every ``durable-harness`` a test suite starts. A harness process that calls
``share_zygote`` starts its zygote at once (without waiting for it) and names its listening socket
in ``DH_ZYGOTE``; a harness process started from it with that variable connects there instead of
starting one of its own, if the zygote's key (``zygote_key``: the interpreter and the environment
a zygote passes on) is its own; otherwise, or if the zygote is gone, it starts its own, as
before. The zygote serves each such process with a fork of itself made for it (warm already, in
milliseconds), so that they never wait on each other; each instance is forked with its
requester's working directory and search path, so that one warm-up serves them all alike. Every
zygote ends with the process that started the first (its owner): ``run -j``'s parent, pytest's
controller; a dedicated one also ends when its harness process does.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import socket
import sys
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from durable_harness.harness._errors import HarnessError
from durable_harness.harness.candidate._environ import candidate_environ
from durable_harness.harness.isolation._pipe import HungUp, PipeGarbage, Silent, ZygoteKind, recv, send
from durable_harness.harness.isolation._preload import preload_modules, preload_origins

__all__ = ["SHARED_ZYGOTE", "START_TIMEOUT_S", "Zygote", "instances_cpu_s", "share_with_this_fork", "share_zygote",
           "zygote", "zygote_key"]

START_TIMEOUT_S = 120.0  # a fresh interpreter importing the SDK, on a loaded machine
_ANSWER_TIMEOUT_S = 60.0
_DEATH_WORDS_S = 10.0  # how long a zygote that closed its pipe is given to end and have its last words read
_BOOT = "import sys; sys.path[:0] = __import__('json').loads(sys.argv[2]); " \
        "from durable_harness.harness.isolation._zygote_process import main; " \
        "main(int(sys.argv[1]), int(sys.argv[3]), sys.argv[4], sys.argv[5])"
SHARED_ZYGOTE = "DH_ZYGOTE"  # the listening socket of a zygote that harness processes started from here may use
_SOCKET = "zygote.sock"
_MAX_SOCKET_PATH = 100  # an AF_UNIX path is at most 107 bytes; with a longer temporary folder, no sharing


class Zygote:
    """A harness process's handle on a zygote: one it started (``start``) or one it shares
    (``attach``). See the module's doc."""

    def __init__(self, sock: socket.socket, *, shared: bool, pid: int = 0, process: Any = None,
                 folder: Path | None = None, address: str | None = None) -> None:
        self._lock = threading.Lock()
        self._sock = sock
        self.shared = shared  # not ours to stop: another process's (attached), or a fork's handle on its parent's
        self._pid = pid  # 0 until it has said it is ready
        self._process = process
        self._folder = folder
        self.address = address  # where other harness processes may connect (None: nowhere)
        self.key = zygote_key()
        self.owner = os.getpid()
        self.instances_cpu_s = 0.0  # CPU time of the instances reaped so far (for benchmarks)

    @classmethod
    def start(cls) -> Zygote:
        """Start a zygote; it warms up while this process goes on (``ready`` waits for it)."""
        from durable_harness.harness._supervisor import spawn

        folder = Path(tempfile.mkdtemp(prefix="durable-harness-zygote-"))
        listener = _listener(str(folder / _SOCKET))
        address = str(folder / _SOCKET) if listener is not None else None
        ours, theirs = socket.socketpair()
        paths = [p for p in sys.path if p]
        fds = [theirs.fileno(), *([listener.fileno()] if listener is not None else [])]
        argv = [sys.executable, "-c", _BOOT, str(theirs.fileno()), json.dumps(paths),
                str(listener.fileno() if listener is not None else -1), zygote_key(), json.dumps(preload_modules())]
        try:
            process = spawn(argv, zygote_environ(), folder / "zygote.log", cwd=Path.cwd(), pass_fds=fds)
        except OSError as err:
            ours.close()
            shutil.rmtree(folder, ignore_errors=True)
            raise HarnessError(
                f"the harness could not start the process its candidates are forked from: {err}") from err
        finally:
            theirs.close()
            if listener is not None:
                listener.close()  # the zygote's now
        return cls(ours, shared=False, process=process, folder=folder, address=address)

    @classmethod
    def attach(cls, address: str) -> Zygote | None:
        """The zygote listening at ``address``, if it answers and its key is this process's (None otherwise)."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(address)
            hello, _ = recv(sock, START_TIMEOUT_S)
        except (Silent, HungUp, PipeGarbage, OSError):
            sock.close()
            return None
        if hello.get("k") != ZygoteKind.READY or hello.get("key") != zygote_key() or not isinstance(hello.get("pid"), int):
            sock.close()
            return None
        return cls(sock, shared=True, pid=int(hello["pid"]), address=address)

    @property
    def pid(self) -> int:
        """The zygote's process id (once it has said it is ready: this waits for it)."""
        self.ready()
        return self._pid

    def ready(self) -> None:
        """Wait until the zygote has warmed up and said so (at once if it has)."""
        if self._pid:
            return
        try:
            hello, _ = recv(self._sock, START_TIMEOUT_S)
        except (Silent, HungUp, PipeGarbage, OSError) as err:
            _forget(self)
            if self._process is not None and not isinstance(err, Silent):
                self._process.wait_output(_DEATH_WORDS_S)  # it closed the pipe: it is dying, saying why
            last = " | ".join(self._process.last_lines()) if self._process is not None else ""
            self.close()
            raise HarnessError(f"the process the harness forks candidates from did not start ({err}): {last}") from None
        self._pid = int(hello.get("pid") or 0)

    def usable(self) -> bool:
        """Whether this process may go on using it as it is (its key may have changed since)."""
        return (self.owner == os.getpid() and (self.shared or self._process.alive())
                and self.key == zygote_key())

    def spawn(self, request: Mapping[str, Any]) -> tuple[int, socket.socket]:
        """Fork an instance for ``request`` (``_child.run_child`` reads it), where this process is
        (its working directory and search path); its pid and the harness's end of its pipe."""
        with self._lock:
            answer = self._ask({**request, "k": ZygoteKind.SPAWN, "cwd": _cwd(), "paths": [p for p in sys.path if p]})
            return int(answer["pid"]), self._received_pipe(f"instance {answer.get('pid')}")

    def reap(self, pid: int) -> tuple[int | None, float]:
        """Wait for instance ``pid`` (already killed, or dead): its wait status and CPU seconds."""
        with self._lock:
            answer = self._ask({"k": ZygoteKind.REAP, "pid": pid})
        status = answer.get("status")
        cpu_s = float(answer.get("cpu_s") or 0.0)
        self.instances_cpu_s += cpu_s
        return (int(status) if isinstance(status, int) else None), cpu_s

    def connection(self) -> socket.socket:
        """Another pipe to the zygote, for a fork of this process to make its own (see the module's doc)."""
        with self._lock:
            self._ask({"k": ZygoteKind.CONNECT})
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
        self.ready()
        try:
            send(self._sock, request)
            answer, _ = recv(self._sock, _ANSWER_TIMEOUT_S)
        except (Silent, HungUp, PipeGarbage, OSError) as err:
            raise self._broken(str(err)) from None
        if answer.get("k") == ZygoteKind.FAILED:
            raise self._broken(str(answer.get("message")))
        return answer

    def _broken(self, why: str) -> HarnessError:
        _forget(self)  # the next run starts another (or attaches again)
        self.close()
        return HarnessError(f"the process the harness forks candidates from failed: {why}")

    def close(self) -> None:
        try:
            self._sock.close()
        except OSError:
            pass
        if self.shared:  # another process's: it stops it
            return
        self._process.kill()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)


def _listener(address: str) -> socket.socket | None:
    """A listening socket at ``address`` for other harness processes (None where there can be none)."""
    if len(address.encode()) > _MAX_SOCKET_PATH or not hasattr(socket, "AF_UNIX"):
        return None
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(address)  # in a folder only this user may enter (mkdtemp)
        listener.listen(64)
    except OSError:
        listener.close()
        return None
    return listener


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # the working directory was removed
        return None


_ZYGOTE: list[Zygote] = []
_START = threading.Lock()


def zygote_environ() -> dict[str, str]:
    """The environment a zygote starts with, as the harness's environment is now."""
    return candidate_environ(os.environ, {"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"})


def zygote_key() -> str:
    """What makes two zygotes the same to an instance: the interpreter, the environment they pass
    on and the libraries they import ahead (``_preload``: their names, and where each is found); the
    working directory and the search path come with each request."""
    text = json.dumps([sys.executable, sorted(zygote_environ().items()), preload_origins(preload_modules())])
    return hashlib.sha256(text.encode()).hexdigest()


def zygote() -> Zygote:
    """This process's zygote: the one it uses already; else the one ``DH_ZYGOTE`` names, if its key
    is this process's; else one started now (a forked harness gets its own). A zygote whose key is
    no longer this process's (``DH_PASS_ENV`` and what it names changed) is left for another."""
    with _START:
        if _ZYGOTE:
            one = _ZYGOTE[0]
            if one.usable():
                return one
            if one.owner == os.getpid():
                _REAPED[0] += one.instances_cpu_s
                one.close()
        address = os.environ.get(SHARED_ZYGOTE, "")
        _ZYGOTE[:] = [(Zygote.attach(address) if address else None) or Zygote.start()]
        return _ZYGOTE[0]


def share_zygote() -> None:
    """Let the harness processes started from this one from now on use this process's zygote
    (started now if it has none; this process does not wait for it to warm up). One that cannot
    even start is not shared: each run that needs a zygote then says why, as the harness's error."""
    try:
        one = zygote()
    except HarnessError:
        return
    if one.address is not None:
        os.environ[SHARED_ZYGOTE] = one.address


def _forget(one: Zygote) -> None:
    with _START:
        if _ZYGOTE and _ZYGOTE[0] is one:
            _ZYGOTE.clear()


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
