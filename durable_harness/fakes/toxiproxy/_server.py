"""Starting and stopping the server: the API listener, the proxies it made, and a thread to run it in.

``ToxiproxyServer`` runs on the caller's event loop (``async with ToxiproxyServer(rng=...)``);
``ToxiproxyThread`` runs one on an event loop of its own in a background thread, for synchronous
callers such as a test or the harness's process driver (``with ToxiproxyThread(rng=...) as server``).
Either listens on loopback only, on ``port`` (0 for a free one; ``url`` says which), and stops
everything it started — the API listener, every proxy's listener, every connection and task —
within ``stop_timeout_s``. A port already in use is a ``ToxiproxyError`` that names it.

All randomness (toxicity draws, jitter, slice sizes, request ids) derives from the ``random.Random``
given at construction: one draw seeds the server, and each connection's stream is derived from that
seed, the proxy's name and the connection's number.

What it deliberately does not do: read a config file or flags (``populate`` does what ``-config``
does), metrics, or logging.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import threading
from collections.abc import Iterator
from types import TracebackType

from durable_harness.fakes.toxiproxy._api import Api
from durable_harness.fakes.toxiproxy._http import serve_http
from durable_harness.fakes.toxiproxy._model import ProxyInput, format_hostport, loopback_host
from durable_harness.fakes.toxiproxy._proxy import Proxy, settle_accepts

__all__ = ["ToxiproxyError", "ToxiproxyServer", "ToxiproxyThread"]


class ToxiproxyError(RuntimeError):
    """The server could not start or stop (a busy port, a bound exceeded)."""


class ToxiproxyServer:
    """A Toxiproxy-compatible server (HTTP API 2.x and TCP proxies) on the running event loop."""

    def __init__(self, *, rng: random.Random, host: str = "127.0.0.1", port: int = 0, dial_timeout_s: float = 5.0,
                 max_connections: int = 1024, stop_timeout_s: float = 10.0) -> None:
        if not isinstance(rng, random.Random):
            raise TypeError(f"rng={rng!r} must be a random.Random (seed it for reproducible jitter and slices)")
        if loopback_host(host) is None:
            raise ValueError(f"host={host!r} must be a loopback address (127.0.0.1, ::1 or localhost)")
        if not 0 <= port <= 65535:
            raise ValueError(f"port={port!r} must be in 0..65535 (0 picks a free port)")
        for name, value in (("dial_timeout_s", dial_timeout_s), ("stop_timeout_s", stop_timeout_s),
                            ("max_connections", max_connections)):
            if value <= 0:
                raise ValueError(f"{name}={value!r} must be above 0")
        self._host = loopback_host(host) or host
        self._port = port
        self._seed = f"{rng.getrandbits(64):016x}"
        self._dial_timeout_s = dial_timeout_s
        self._max_connections = max_connections
        self._stop_timeout_s = stop_timeout_s
        self.proxies: dict[str, Proxy] = {}
        self._api = Api(self.proxies, self._new_proxy, self._request_ids())
        self._server: asyncio.Server | None = None
        self._clients: dict[asyncio.Task[None], asyncio.StreamWriter] = {}

    @property
    def port(self) -> int:
        if self._server is None:
            raise ToxiproxyError("the server is not running: start() it first")
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        return f"http://{format_hostport(self._host, self.port)}"

    def _request_ids(self) -> Iterator[str]:
        for number in itertools.count(1):
            yield f"{self._seed}{number:08x}"

    def _new_proxy(self, wanted: ProxyInput) -> Proxy:
        return Proxy(wanted.name, wanted.listen, wanted.upstream, seed=self._seed,
                     dial_timeout_s=self._dial_timeout_s, max_connections=self._max_connections)

    async def start(self) -> None:
        if self._server is not None:
            raise ToxiproxyError(f"the server is already running on {self.url}")
        try:
            self._server = await asyncio.start_server(self._accept_api, self._host, self._port,
                                                      reuse_address=True)
        except OSError as exc:
            raise ToxiproxyError(f"cannot listen on {format_hostport(self._host, self._port)} for the Toxiproxy "
                                 f"API: {exc.strerror or exc}; stop what holds the port, or pass port=0 for a "
                                 "free one") from exc

    def _accept_api(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """``start_server``'s callback: a task of our own per client, so ``stop`` can close every client."""
        if self._server is None:  # accepted just before the listener closed, handed over just after
            writer.transport.abort()
            return
        task = asyncio.get_running_loop().create_task(serve_http(reader, writer, self._api.handle))
        self._clients[task] = writer
        task.add_done_callback(self._forget)

    def _forget(self, task: asyncio.Task[None]) -> None:
        self._clients.pop(task, None)

    async def stop(self) -> None:
        """Close the API and every proxy; a ``ToxiproxyError`` if that takes longer than ``stop_timeout_s``."""
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        await settle_accepts()
        try:
            async with asyncio.timeout(self._stop_timeout_s):
                for proxy in list(self.proxies.values()):
                    await proxy.stop()
                self.proxies.clear()
                clients = dict(self._clients)
                for task in clients:
                    task.cancel()
                if clients:
                    await asyncio.wait(list(clients))
                for writer in clients.values():  # a client whose task was cancelled before it ever ran
                    writer.transport.abort()
                await asyncio.sleep(0)  # let the transports' close callbacks run
                await server.wait_closed()
        except TimeoutError as exc:
            raise ToxiproxyError(f"the server did not stop within {self._stop_timeout_s} s") from exc

    async def __aenter__(self) -> ToxiproxyServer:
        await self.start()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.stop()


class ToxiproxyThread:
    """A ``ToxiproxyServer`` on its own event loop in a daemon thread; ``start()`` and ``stop()`` are bounded."""

    def __init__(self, *, rng: random.Random, host: str = "127.0.0.1", port: int = 0,
                 start_timeout_s: float = 10.0, stop_timeout_s: float = 10.0, dial_timeout_s: float = 5.0) -> None:
        self.server = ToxiproxyServer(rng=rng, host=host, port=port, dial_timeout_s=dial_timeout_s,
                                      stop_timeout_s=stop_timeout_s)
        self._start_timeout_s = start_timeout_s
        self._join_timeout_s = stop_timeout_s + 5.0
        self._thread = threading.Thread(target=self._run, name="toxiproxy", daemon=True)
        self._started = threading.Event()
        self._failure: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def url(self) -> str:
        return self.server.url

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # reported to start() or stop(), never lost in the thread
            self._failure = exc
        finally:
            self._started.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        await self.server.start()
        self._started.set()
        try:
            await self._stopping.wait()
        finally:
            await self.server.stop()

    def start(self) -> None:
        self._thread.start()
        if not self._started.wait(self._start_timeout_s):
            self.stop()
            raise ToxiproxyError(f"the Toxiproxy server did not start within {self._start_timeout_s} s")
        if self._failure is not None:
            failure, self._failure = self._failure, None
            self._thread.join(self._join_timeout_s)
            raise failure

    def stop(self) -> None:
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None and self._thread.is_alive():
            try:
                loop.call_soon_threadsafe(stopping.set)
            except RuntimeError:  # the loop already closed
                pass
        if self._thread.ident is not None:
            self._thread.join(self._join_timeout_s)
            if self._thread.is_alive():
                raise ToxiproxyError(f"the Toxiproxy server thread did not end within {self._join_timeout_s} s")
        if self._failure is not None:
            failure, self._failure = self._failure, None
            if isinstance(failure, ToxiproxyError):
                raise failure
            raise ToxiproxyError(f"the Toxiproxy server failed: {failure!r}") from failure

    def __enter__(self) -> ToxiproxyThread:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
