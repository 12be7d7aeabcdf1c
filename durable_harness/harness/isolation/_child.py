"""The candidate's side of a forked instance: what runs in it, and only there.

An instance is forked from the zygote (``_zygote``), never from the harness, with the request the
harness made: a probe (import the candidate, say its digest) or an instance. An instance resolves
the candidate (its imports run here), builds its ``env`` from the data it was sent (``_env``) with
clients whose transport and clock are the pipe to the harness, makes the instance, says which
methods it has, and then serves calls of the control API one at a time until the pipe closes.
Every request and every sleep is a message to the harness, which answers it from the one world it
keeps: the instance holds no part of the world, and its memory holds nothing of the harness's. The
time (the run's, and what the SDK's clock says when a scenario puts it on the run's) comes with
every message from the harness: it moves only while the harness runs, so reading it asks nothing.
A message that needs no answer (a stream closed) goes with the next one, in the same write: each
write wakes the harness.

While the instance waits for an answer, the harness may call it again (a webhook during a step, a
cancellation while a write is in flight): such a call runs on the waiting thread, to its end,
before the wait goes on, as in-process. Only the thread that runs the current call may talk to
the harness; a request from any other thread fails at once (a run must not depend on threads).

The instance always ends with ``os._exit``: it never returns into the zygote's loop.
"""

from __future__ import annotations

import io
import os
import signal
import socket
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NoReturn

import httpx

from durable_harness.harness._libc import libc
from durable_harness.harness.candidate._claims import check_report
from durable_harness.harness.isolation._pipe import HungUp, InstanceKind, frame, plain, recv, send

__all__ = ["Limits", "run_child"]


class Limits:
    """Bounds on one child: its address space above the harness's (MiB) and its CPU time (s)."""

    def __init__(self, memory_mb: int, cpu_s: float) -> None:
        self.memory_mb = memory_mb
        self.cpu_s = cpu_s


class _Link:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.owner = threading.get_ident()
        self.instance: Any = None
        self.time: tuple[float, int] | None = None  # the run's time as the harness last said it
        self.sdk_times: dict[str, Any] = {}  # what the SDK's stand-ins said then (``_sdk_time.times``)
        self.reach: Any = None  # ``_reach.LineReach`` when the harness asked which lines the calls run
        self._notes: list[bytes] = []  # messages that need no answer, not sent yet

    def _heard(self, header: Mapping[str, Any]) -> None:
        stamp = header.get("t")
        if isinstance(stamp, list) and len(stamp) == 2:
            self.time = (float(stamp[0]), int(stamp[1]))
            sdk = header.get("st")
            self.sdk_times = sdk if isinstance(sdk, dict) else {}

    def notify(self, header: Mapping[str, Any]) -> None:
        """Tell the harness something that needs no answer: it goes with our next message, in the
        same write (the harness, which only waits meanwhile, reads it first, as it would have)."""
        if threading.get_ident() == self.owner:
            self._notes.append(frame(header))

    def answer(self, header: Mapping[str, Any]) -> None:
        """The end of a call: its answer, with the lines of the candidate's code it reached (``r``)."""
        lines = self.reach.take() if self.reach is not None else None
        self.send({**header, "r": lines} if lines else header)

    def send(self, header: Mapping[str, Any], payload: bytes = b"") -> None:
        """A message to the harness, after the notes not sent yet: one write, one wake-up."""
        if self._notes:
            notes, self._notes = self._notes, []
            self.sock.sendall(b"".join(notes) + frame(header, payload))
            return
        send(self.sock, header, payload)

    def rpc(self, header: Mapping[str, Any], payload: bytes = b"") -> tuple[dict[str, Any], bytes]:
        """Ask the harness; serve the calls it makes meanwhile; return its answer."""
        if threading.get_ident() != self.owner:
            raise httpx.ConnectError("only the thread running a call of the control API reaches the world "
                                     "(the harness answers one call at a time)")
        self.send(header, payload)
        while True:
            answer, data = recv(self.sock)
            self._heard(answer)
            if answer["k"] != InstanceKind.CALL:
                return answer, data
            self.call(answer, data)

    def call(self, header: Mapping[str, Any], payload: bytes) -> None:
        method, args = str(header.get("m")), list(header.get("a") or [])
        if method == "receive_webhook":
            args = [args[0] if args else {}, payload]
        try:
            value = getattr(self.instance, method)(*args)
        except BaseException as err:  # anything, SystemExit included: the harness judges it, we only say it
            self.answer(_error(err, method))
            return
        if method == "report":  # read here, where the object is: what is not JSON cannot cross the pipe
            claims, problem = check_report(value)
            if claims is None:
                self.answer({"k": InstanceKind.REFUSED_REPORT, "problem": problem})
                return
            value = claims
        self.answer({"k": InstanceKind.RESULT, "v": plain(value)})

    def serve(self) -> None:
        while True:
            try:
                header, payload = recv(self.sock)
            except HungUp:
                return
            self._heard(header)
            if header["k"] == InstanceKind.CALL:
                self.call(header, payload)


def _error(err: BaseException, method: str) -> dict[str, Any]:
    from durable_harness.harness.drivers._instances import own_frames

    message = _safe_str(err)
    if isinstance(err, MemoryError):
        message = f"{message or 'out of memory'} (the candidate's memory bound was reached)"
    elif isinstance(err, SystemExit):
        message = f"sys.exit({err.code!r}) in {method}()"
    return {"k": InstanceKind.RAISED, "type": type(err).__name__, "message": message[:500], "frames": own_frames(err)}


def _safe_str(err: BaseException) -> str:
    try:
        return str(err)
    except Exception:
        return f"<unprintable {type(err).__name__}>"


class _PipeTransport(httpx.BaseTransport):
    """The candidate's HTTP, as messages to the harness's gate (for process ``process``)."""

    def __init__(self, link: _Link, process: str) -> None:
        self._link = link
        self._process = process

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        answer, data = self._link.rpc({"k": InstanceKind.REQUEST, "p": self._process, "m": request.method,
                                       "u": str(request.url), "h": [[k, v] for k, v in request.headers.multi_items()]},
                                      body)
        if answer["k"] == InstanceKind.TRANSPORT_ERROR:
            raise _transport_error(answer, request)
        headers = [(str(k), str(v)) for k, v in answer.get("h") or []]
        if answer.get("s") is not None:
            return httpx.Response(int(answer["status"]), headers=headers, request=request,
                                  stream=_PipeStream(self._link, int(answer["s"]), request))
        return httpx.Response(int(answer["status"]), headers=headers, content=data, request=request)


def _transport_error(answer: Mapping[str, Any], request: httpx.Request | None) -> httpx.TransportError:
    cls = getattr(httpx, str(answer.get("type")), None)
    if not (isinstance(cls, type) and issubclass(cls, httpx.TransportError)):
        cls = httpx.TransportError
    return cls(str(answer.get("message")), request=request)


class _PipeStream(httpx.SyncByteStream):
    """A streamed answer, read one chunk at a time from the harness (as the gate hands them out)."""

    def __init__(self, link: _Link, stream_id: int, request: httpx.Request) -> None:
        self._link = link
        self._id = stream_id
        self._request = request
        self._done = False

    def __iter__(self) -> Iterator[bytes]:
        while not self._done:
            answer, data = self._link.rpc({"k": InstanceKind.NEXT_CHUNK, "s": self._id})
            if answer["k"] == InstanceKind.CHUNK:
                yield data
                continue
            self._done = True
            if answer["k"] == InstanceKind.TRANSPORT_ERROR:
                raise _transport_error(answer, None)

    def close(self) -> None:
        if not self._done:
            self._done = True
            self._link.notify({"k": InstanceKind.STREAM_CLOSED, "s": self._id})


class _PipeClock:
    """``env.clock``: the run's clock, read (and slept on) in the harness."""

    def __init__(self, link: _Link) -> None:
        self._link = link

    def now(self) -> float:
        if self._link.time is not None:
            return self._link.time[0]
        return float(self._link.rpc({"k": InstanceKind.CLOCK, "op": "now"})[0]["v"])

    def unix(self) -> int:
        if self._link.time is not None:
            return self._link.time[1]
        return int(self._link.rpc({"k": InstanceKind.CLOCK, "op": "unix"})[0]["v"])

    def sleep(self, seconds: float) -> None:
        self._link.rpc({"k": InstanceKind.CLOCK, "op": "sleep", "v": float(seconds)})


class _PipeSdkTime:
    """Stands in for ``time`` inside the SDK's modules the harness put on the run's clock: the
    harness's own stand-in answers (``which``: ``webhooks`` or ``retries``)."""

    def __init__(self, link: _Link, which: str) -> None:
        self._link = link
        self._which = which

    def time(self) -> float:
        said = self._link.sdk_times.get(self._which)  # as the harness said it with its last message
        if isinstance(said, (int, float)):
            return float(said)
        return float(self._link.rpc({"k": InstanceKind.SDK_CLOCK, "which": self._which, "op": "time"})[0]["v"])

    def sleep(self, seconds: float) -> None:
        self._link.rpc({"k": InstanceKind.SDK_CLOCK, "which": self._which, "op": "sleep", "v": float(seconds)})

    def random(self) -> float:
        return float(self._link.rpc({"k": InstanceKind.SDK_CLOCK, "which": self._which, "op": "random"})[0]["v"])


def _sdk_on_the_pipe(link: _Link, sdk: Mapping[str, Any]) -> None:
    """Where the harness has put the SDK on the run's clock (``sdk``: ``webhooks``, ``retries``),
    the instance's SDK asks the harness for the time."""
    from openai import _base_client
    from openai.lib import _webhooks

    if sdk.get("webhooks"):
        setattr(_webhooks, "time", _PipeSdkTime(link, "webhooks"))
    if sdk.get("retries"):
        forward = _PipeSdkTime(link, "retries")
        setattr(_base_client, "time", forward)
        setattr(_base_client, "random", forward.random)


def _own_output(log_path: Path) -> None:
    """The child's stdout and stderr go to its log (the harness's buffers are not flushed twice)."""
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), line_buffering=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), line_buffering=True)


def _bound(limits: Limits) -> None:
    import resource

    if limits.cpu_s > 0:
        soft = max(1, int(limits.cpu_s))
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 5))
    if limits.memory_mb > 0:
        try:
            with open("/proc/self/statm") as statm:
                pages = int(statm.read().split()[0])
        except OSError:
            return  # no way to know our own size here: no memory bound (documented)
        size = pages * os.sysconf("SC_PAGE_SIZE") + limits.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))


def _no_network() -> None:
    """Linux, where allowed (root, or a user namespace): a network namespace of our own, with no
    interface up, so that the only way out is the pipe to the harness (a connection of the
    candidate's own fails at once: "Network is unreachable"). Elsewhere a best effort: the
    instance keeps the host's network, and only the clients in ``env`` reach the simulated world."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc().unshare(0x40000000)  # CLONE_NEWNET; fails quietly without the right
    except (OSError, AttributeError):
        pass


def _die_with_the_zygote() -> None:
    """Linux: the instance is killed when the zygote (its parent, which dies with the harness) dies,
    even while it computes and reads nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc().prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run_child(sock: socket.socket, request: Mapping[str, Any]) -> NoReturn:
    """The whole life of a forked instance (``request``: what the harness asked the zygote for).
    Never returns."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the harness's to handle: it kills us
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _die_with_the_zygote()
        if request.get("network") == "none":
            _no_network()
        if request.get("mode") == "probe":
            _probe(sock, str(request["spec"]))
        _own_output(Path(str(request["log"])))
        limits = request.get("limits") or {}
        _bound(Limits(int(limits.get("memory_mb") or 0), float(limits.get("cpu_s") or 0.0)))
        link = _Link(sock)
        _sdk_on_the_pipe(link, request.get("sdk") or {})
        try:
            from durable_harness.harness.candidate._env import build_env
            from durable_harness.harness.candidate._spec import resolve_candidate

            factory = resolve_candidate(str(request["spec"]))
            if request.get("reach"):  # explore asks which lines of the candidate's code each call runs
                from durable_harness.harness.candidate._spec import python_code_roots
                from durable_harness.harness.isolation._reach import LineReach

                link.reach = LineReach(python_code_roots(str(request["spec"])))
                link.reach.start()
            env, _ = build_env(request["env"], lambda process: _PipeTransport(link, process), _PipeClock(link))
            link.instance = factory(env)
        except BaseException as err:
            send(sock, {**_error(err, "factory"), "where": "factory"})
            link.serve()  # the harness decides what happens next (it kills us)
            _exit(0)
        methods = sorted(m for m in ("submit", "cancel", "report", "step", "receive_webhook", "close")
                         if callable(getattr(link.instance, m, None)))
        lease = getattr(link.instance, "lease_ttl_s", None)
        link.answer({"k": InstanceKind.READY, "methods": methods,
                     "lease_ttl_s": lease if isinstance(lease, (int, float)) and not isinstance(lease, bool) else None})
        link.serve()
    except BaseException:
        code = 70
    _exit(code)


def _probe(sock: socket.socket, spec: str) -> NoReturn:
    """Import the candidate, say whether ``spec`` names a factory and the digest of its source."""
    from durable_harness.harness.candidate._spec import CandidateSpecError, candidate_digest, resolve_candidate

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        resolve_candidate(spec)
        send(sock, {"k": InstanceKind.PROBED, "digest": candidate_digest(spec)})
    except CandidateSpecError as err:
        send(sock, {"k": InstanceKind.PROBED, "spec_error": str(err)})
    except BaseException as err:
        send(sock, {"k": InstanceKind.PROBED, "died": f"importing it raised {type(err).__name__}: {err}"[:500]})
    _exit(0)


def _exit(code: int) -> NoReturn:
    os._exit(code)
