"""Every simulated service of one run, served on loopback, with the gate on the server side.

The process driver's candidate reaches the world over real sockets: each service gets a uvicorn
server on ``127.0.0.1`` and an ephemeral port, all on one event loop in one thread, started by
the world for one worker (``_serving``) and stopped when that worker's driver closes. Each request is handed, as an ``httpx.Request`` for the service's own host,
to ``Gate.dispatch``: the very code the in-process transport runs, so every fault fires where it
does in-process (before delivery, after the service committed, per SSE event) and every request is
recorded the same way. What the gate decides is then carried out on the connection:

* an answer (the service's, or one a fault put in its place) is sent as it is;
* a lost response (``timeout`` after its wait on the run's clock, or ``reset``) and a dropped
  connection close the connection without an answer (a TCP reset): the client cannot know what
  happened. (A refused connection cannot be refused once accepted: the client sees a reset before
  any answer, which a correct client treats as "unknown", as the contract says);
* a crash kills the candidate (SIGKILL, through ``on_crash``) before anything is written, then
  drops the connection;
* a stream is sent event by event as the gate's tap lets them through; a cut ``reset`` sends the
  truncated event and closes the connection mid-body; a cut ``eof`` ends the body cleanly.

Every answer says the run's time (``X-Harness-Time``, and an HTTP ``Date``). One more server is the
worker's clock service (``_idleness``: ``GET /now``, ``GET /wait``, ``POST /idle``), outside the
gate: it is the harness's, not the world's, and nothing of it is recorded. Each request, stream
read and wait is noted in the worker's ``Idleness``.

Dispatches and stream reads run on a thread pool, each holding the world's lock (``WorldLock``)
and releasing it whenever it waits on the clock; the event loop itself never touches the world.
It deliberately knows nothing of the candidate beyond the two callbacks, and nothing of what the
faults mean (the gate and the faults do).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import email.utils
import json
import socket
import struct
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import httpx
import uvicorn

from durable_harness.harness._errors import HarnessError
from durable_harness.harness._gate import Gate
from durable_harness.harness._idleness import CLOCK_HOST, Idleness
from durable_harness.harness._realtime import CallTimeout, ClockStopped, RealBound, RealTimeClock
from durable_harness.harness.candidate._protocol import CandidateCrashed

__all__ = ["LoopbackServers"]

HOST = "127.0.0.1"
START_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 10.0
MAX_THREADS = 64
ARRIVAL_TURNS = 10  # turns of the event loop that bring a request already on a socket to its handler
ARRIVAL_BOUND_S = 5.0  # real seconds that waiting for what has arrived may take
_LOG_CONFIG: dict[str, Any] = {  # uvicorn's own complaints about dropped connections are the point, not news
    "version": 1, "disable_existing_loggers": False,
    "handlers": {"null": {"class": "logging.NullHandler"}},
    "loggers": {name: {"handlers": ["null"], "level": "CRITICAL", "propagate": False}
                for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")},
}
_SKIP_HEADERS = {b"host", b"transfer-encoding"}

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


@dataclass(frozen=True)
class _Answer:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes


@dataclass(frozen=True)
class _Drop:
    """Close the connection without (the rest of) an answer."""


class _End:
    """The stream is over."""


_DROP, _END = _Drop(), _End()


class LoopbackServers:
    def __init__(self, gate: Gate, clock: RealTimeClock, *, process: Callable[[], str],
                 on_crash: Callable[[CandidateCrashed], None]) -> None:
        self._gate = gate
        self._clock = clock
        self._lock = clock.lock
        self._process = process
        self._on_crash = on_crash
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=MAX_THREADS, thread_name_prefix="dh-serve")
        self._servers: list[uvicorn.Server] = []
        self._thread: threading.Thread | None = None
        self._busy = 0  # dispatches and stream reads in progress (under the lock)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._arriving = 0  # requests read off a socket that the gate has not taken yet
        self._arriving_guard = threading.Lock()  # the event loop counts them up without the world
        self.dispatching = 0  # requests in progress: the candidate waits for an answer
        self.bases: dict[str, str] = {}
        self.idleness = Idleness(clock)

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> dict[str, str]:
        """Serve every service of the gate; returns each service host's base URL (``http://127.0.0.1:PORT``)."""
        sockets = []
        for host in [*self._gate.services, CLOCK_HOST]:
            # IPPROTO_TCP named, so that asyncio turns Nagle off on every connection it accepts (it
            # only does so for a socket whose protocol says TCP): with Nagle on, an answer's body
            # waits for the ACK of its headers, which the client delays 40 ms, on every request.
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            sock.bind((HOST, 0))
            sock.listen(128)
            sockets.append(sock)
            config = uvicorn.Config(self._app(host), lifespan="off", http="h11", ws="none", loop="asyncio",
                                    interface="asgi3", log_config=_LOG_CONFIG, access_log=False,
                                    timeout_graceful_shutdown=1)
            self._servers.append(uvicorn.Server(config))
            self.bases[host] = f"http://{HOST}:{sock.getsockname()[1]}"
        self._thread = threading.Thread(target=self._run, args=(sockets,), name="dh-loopback", daemon=True)
        self._thread.start()
        bound = RealBound(START_TIMEOUT_S)
        while not all(s.started for s in self._servers):
            if bound.expired() or not self._thread.is_alive():
                self.stop()
                raise HarnessError(f"the loopback servers did not start (bound: {START_TIMEOUT_S:g} s)")
            self._lock.wait(0.01)
        return dict(self.bases)

    def _run(self, sockets: list[socket.socket]) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        try:
            loop.run_until_complete(self._serve(sockets))
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        finally:
            loop.close()
            for sock in sockets:
                sock.close()

    async def _serve(self, sockets: list[socket.socket]) -> None:
        serving = (server.serve(sockets=[sock]) for server, sock in zip(self._servers, sockets))
        await asyncio.gather(*serving, return_exceptions=True)

    def stop(self) -> None:
        """Stop serving, and wait (bounded, the world released) for the requests in progress."""
        for server in self._servers:
            server.should_exit = server.force_exit = True
        thread = self._thread
        if thread is not None:  # its last tasks may need the world: wait for it with the world released
            self._lock.call_unlocked(lambda: thread.join(timeout=STOP_TIMEOUT_S), STOP_TIMEOUT_S + 1.0)
        self._lock.wait_for(lambda: self._busy == 0, STOP_TIMEOUT_S)
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- what has arrived -------------------------------------------------------------------
    def arrived(self) -> None:
        """With the world held: wait (bounded, the world released) until the gate has taken every
        request whose bytes had reached these servers' sockets when this was called.

        The process driver calls it between a control call's answer and its record: a request the
        candidate sent before it answered (a write a cancel could no longer stop) is recorded before
        the answer, as it happened, even when this process's threads are slow to read it. The event
        loop turns a few times first: enough for it to accept a new connection, read the request on
        it and start its handler (about five turns), which counts the request as arriving."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return

        async def turns() -> None:
            for _ in range(ARRIVAL_TURNS):
                await asyncio.sleep(0)

        def turned() -> None:
            try:
                asyncio.run_coroutine_threadsafe(turns(), loop).result(ARRIVAL_BOUND_S)
            except (concurrent.futures.TimeoutError, concurrent.futures.CancelledError, RuntimeError):
                pass  # the servers stop, or the loop is that busy: the records stay in the order they came

        try:
            self._lock.call_unlocked(turned, ARRIVAL_BOUND_S + 1.0)
        except CallTimeout:
            return
        self._lock.wait_for(lambda: self._arriving == 0, ARRIVAL_BOUND_S)

    def _arrive(self, n: int) -> None:
        with self._arriving_guard:
            self._arriving += n

    def _left_early(self) -> None:
        """A request that will never reach the gate is no longer arriving (on the pool, with the world)."""
        with self._lock:
            self._arrive(-1)
            self._lock.notify()

    # -- one request -----------------------------------------------------------------------
    def _app(self, host: str) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                return
            loop = asyncio.get_running_loop()
            served = host != CLOCK_HOST
            if served:
                self._arrive(1)
            try:
                body = await _body(receive)
            except BaseException:
                if served:
                    await loop.run_in_executor(self._pool, self._left_early)
                raise
            if body is None:  # the client left before it finished asking
                if served:
                    await loop.run_in_executor(self._pool, self._left_early)
                return
            outcome: _Answer | _Stream | _Drop
            if host == CLOCK_HOST:
                outcome = await loop.run_in_executor(self._pool, self._clock_service, scope)
            else:
                outcome = await loop.run_in_executor(self._pool, self._dispatch, _request(host, scope, body))
            if isinstance(outcome, _Answer):
                await send({"type": "http.response.start", "status": outcome.status, "headers": outcome.headers})
                await send({"type": "http.response.body", "body": outcome.body})
            elif isinstance(outcome, _Stream):
                await self._stream(outcome, receive, send)
            else:
                await _drop(receive, reset=True)
        return app

    def _time(self, headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
        """``headers`` with the run's time: ``X-Harness-Time`` and, unless the service gave one, ``Date``."""
        now = self._clock.now()
        stamped = [*headers, (b"x-harness-time", f"{now:.6f}".encode())]
        if not any(k.lower() == b"date" for k, _ in headers):
            date = email.utils.formatdate(self._clock.origin_unix + now, usegmt=True)
            stamped.append((b"date", date.encode("latin-1")))
        return stamped

    def _clock_service(self, scope: Scope) -> _Answer | _Drop:
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        with self._lock:
            self._busy += 1
            try:
                status, body = self.idleness.serve(scope["method"], scope["path"], query)
            except ClockStopped:  # the run is over
                return _DROP
            finally:
                self._busy -= 1
                self._lock.notify()
            data = json.dumps(body).encode()
            return _Answer(status, self._time([(b"content-type", b"application/json"),
                                               (b"content-length", str(len(data)).encode())]), data)

    def _dispatch(self, raw: httpx.Request) -> _Answer | _Stream | _Drop:
        with self._lock:
            self._arrive(-1)  # taken: the gate records it before it lets go of the world (or it refuses it)
            self._busy += 1
            self.dispatching += 1
            self.idleness.begin()
            try:
                response = self._gate.dispatch(self._process(), raw)
                headers = self._time([(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.headers.multi_items()
                                      if k.lower().encode() not in (b"content-length", b"transfer-encoding")])
                if isinstance(response.stream, httpx.ByteStream):
                    body = response.read()
                    return _Answer(response.status_code, [*headers, (b"content-length", str(len(body)).encode())], body)
                self.idleness.stream_opened()
                return _Stream(self, response.status_code, headers, iter(response.stream))  # type: ignore[arg-type]
            except CandidateCrashed as crash:  # the crash point: the candidate dies before it sees an answer
                self._on_crash(crash)
                return _DROP
            except (httpx.TransportError, HarnessError, ClockStopped):  # the gate decided (or the run is over)
                return _DROP
            except Exception as err:  # this module's own error is the harness's
                self._gate.fail(HarnessError.wrap("the loopback server", err))
                return _DROP
            finally:
                self._busy -= 1
                self.dispatching -= 1
                self.idleness.end()
                self.idleness.delivered()  # its answer (or its end) is on its way
                self._lock.notify()

    async def _stream(self, stream: _Stream, receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        await send({"type": "http.response.start", "status": stream.status, "headers": stream.headers})
        watcher = asyncio.ensure_future(self._watch(receive, stream))
        try:
            for _ in range(10**9):  # bounded by the stream itself: its events, its idle close, the run's end
                item = await loop.run_in_executor(self._pool, stream.pull)
                if isinstance(item, _End):
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                    return
                if isinstance(item, _Drop):  # a cut mid-body: what was sent stays sent, then the connection dies
                    _transport_of(receive).close()
                    return
                if stream.cancelled.is_set():
                    return
                await send({"type": "http.response.body", "body": item, "more_body": True})
        finally:
            stream.cancelled.set()
            await loop.run_in_executor(self._pool, stream.close)
            watcher.cancel()

    async def _watch(self, receive: Receive, stream: _Stream) -> None:
        """Wait for the client to go; then stop the stream's waiting read at once."""
        while (await receive())["type"] != "http.disconnect":
            pass
        stream.cancelled.set()
        await asyncio.get_running_loop().run_in_executor(self._pool, self._lock.notify)


class _Stream:
    """A streamed answer being read from the gate's tap, one chunk per ``pull``, on the pool."""

    def __init__(self, servers: LoopbackServers, status: int, headers: list[tuple[bytes, bytes]],
                 chunks: Any) -> None:
        self._servers = servers
        self.status = status
        self.headers = headers
        self._chunks = chunks
        self.cancelled = threading.Event()
        self._pulling = False
        self._closed = False
        self._open = True  # counted among the worker's open streams (``Idleness``) until closed

    def pull(self) -> bytes | _End | _Drop:
        servers = self._servers
        with servers._lock:
            if self._closed or self.cancelled.is_set():
                self._close_now()
                return _END
            servers._busy += 1
            self._pulling = True
            servers.idleness.begin(request=False)
            servers.idleness.pulling(1)
            try:
                with servers._clock.cancellable(self.cancelled):
                    chunk = bytes(next(self._chunks))
                servers.idleness.sent += len(chunk)
                return chunk
            except StopIteration:
                self._closed = True
                return _END
            except ClockStopped:  # the client went away, or the run is over: the stream unwound
                self._closed = True
                return _END
            except (httpx.TransportError, HarnessError):  # a cut (reset), or the world failed
                self._closed = True
                return _DROP
            except Exception as err:
                servers._gate.fail(HarnessError.wrap("the loopback server's stream", err))
                self._closed = True
                return _DROP
            finally:
                self._pulling = False
                servers._busy -= 1
                servers.idleness.end()
                servers.idleness.pulling(-1)
                servers.idleness.delivered()  # a chunk, or the stream's end, is on its way
                if self._closed:
                    self._uncount()
                servers._lock.notify()

    def close(self) -> None:
        with self._servers._lock:
            if not self._pulling:
                self._close_now()

    def _uncount(self) -> None:
        """No longer among the worker's open streams (once)."""
        if self._open:
            self._open = False
            self._servers.idleness.stream_closed()

    def _close_now(self) -> None:
        self._uncount()
        if not self._closed:
            self._closed = True
            close = getattr(self._chunks, "close", None)
            if callable(close):
                close()


async def _body(receive: Receive) -> bytes | None:
    chunks = []
    for _ in range(10**9):  # bounded by the request's size
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _request(host: str, scope: Scope, body: bytes) -> httpx.Request:
    """The request as the in-process transport would have handed it to the gate: for the service's host."""
    path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
    query = scope.get("query_string", b"").decode("latin-1")
    url = f"http://{host}{path}" + (f"?{query}" if query else "")
    headers = [(k, v) for k, v in scope["headers"] if k.lower() not in _SKIP_HEADERS]
    return httpx.Request(scope["method"], url, headers=headers, content=body or None)


def _transport_of(receive: Receive) -> asyncio.Transport:
    """The connection under uvicorn's request cycle (ASGI has no message to drop a connection)."""
    transport = getattr(getattr(receive, "__self__", None), "transport", None)
    if not isinstance(transport, asyncio.BaseTransport):
        raise RuntimeError("the loopback server cannot reach the connection to drop it; serve with uvicorn's h11")
    return transport  # type: ignore[return-value]


async def _drop(receive: Receive, *, reset: bool) -> None:
    """Close the connection with no answer: a TCP reset (``reset``) or a plain close."""
    transport = _transport_of(receive)
    if reset:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
    else:
        transport.close()
    try:  # let uvicorn see the disconnect, so it does not answer 500 for us
        await asyncio.wait_for(receive(), timeout=1.0)
    except asyncio.TimeoutError:
        pass

