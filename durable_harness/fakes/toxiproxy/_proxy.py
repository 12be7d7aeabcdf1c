"""One proxy: a loopback listener that dials its upstream for every client and joins the two through
the proxy's toxic chains (``_link.Connection``).

A proxy is enabled (listening) or disabled (its port refuses connections and every live connection
is closed: Toxiproxy's "down"). A running proxy reports ``listen`` as the address it is bound to
(``localhost:0`` becomes ``127.0.0.1:<port>``); a disabled one keeps what it was given. The
upstream is dialled afresh for each client, within ``dial_timeout_s``; when that fails the client is
closed at once (it sees the end of the stream, not a refusal), as with Toxiproxy. Each connection
gets its own seeded random stream, derived from the server's seed, the proxy's name and the
connection's number, so the same sequence of connections draws the same jitter and slices.

What it deliberately does not do: listen anywhere but on loopback (a non-loopback listen address
is refused with a 400, where Toxiproxy would bind it), parse HTTP, or validate request bodies
(``_model``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import Any

from durable_harness.fakes.toxiproxy._link import Connection
from durable_harness.fakes.toxiproxy._model import DIRECTIONS, ApiError, ToxicSpec, format_hostport, loopback_host, split_hostport

__all__ = ["Proxy", "resolve_listen", "settle_accepts"]

STOP_WAIT_S = 5.0
ACCEPT_SETTLE_TURNS = 5


async def settle_accepts() -> None:
    """Let connections the listener accepted just before it closed reach our callback, which closes them.

    asyncio hands an accepted socket over through a task of its own; cancelled before it ever runs
    (as ``asyncio.run`` does to what is pending at its end), that task would leak the socket and
    leave its client waiting. A few turns of the loop take every such task to our callback.
    """
    for _ in range(ACCEPT_SETTLE_TURNS):
        await asyncio.sleep(0)


def resolve_listen(listen: str) -> tuple[str, int]:
    """The loopback (host, port) to bind for ``listen``; a 400 for an address that is not loopback."""
    host, port = split_hostport(listen)
    bind = loopback_host(host)
    if bind is None:
        raise ApiError(400, f"listen address {listen!r} is not on loopback: this server binds 127.0.0.1, ::1 "
                            "or localhost only (use one of them)")
    return bind, port


class Proxy:
    """A named proxy: listen address, upstream, enabled flag, toxic chains and live connections."""

    def __init__(self, name: str, listen: str, upstream: str, *, seed: str, dial_timeout_s: float,
                 max_connections: int) -> None:
        self.name, self.listen, self.upstream = name, listen, upstream
        self.enabled = False
        self.chains: dict[str, list[ToxicSpec]] = {direction: [] for direction in DIRECTIONS}
        self._seed = f"{seed}:{name}"
        self._dial_timeout_s = dial_timeout_s
        self._max_connections = max_connections
        self._server: asyncio.Server | None = None
        self._clients: dict[asyncio.Task[None], asyncio.StreamWriter] = {}
        self._connections: set[Connection] = set()
        self._accepted = 0

    def shape(self) -> dict[str, Any]:
        return {"name": self.name, "listen": self.listen, "upstream": self.upstream, "enabled": self.enabled,
                "toxics": [toxic.shape() for toxic in self.toxics()]}

    def same_as(self, listen: str, upstream: str) -> bool:
        """Whether ``listen`` (resolved) and ``upstream`` are what this proxy already has (populate keeps it)."""
        try:
            host, port = resolve_listen(listen)
        except ApiError:
            return False
        return upstream == self.upstream and format_hostport(host, port) == self.listen

    # -- listening --------------------------------------------------------------------------------------
    async def start(self) -> None:
        """Listen on ``listen``; a busy port is Toxiproxy's 500 with the bind error."""
        if self.enabled:
            return
        host, port = resolve_listen(self.listen)
        try:
            self._server = await asyncio.start_server(self._accept, host, port, reuse_address=True)
        except OSError as exc:
            reason = (os.strerror(exc.errno) if exc.errno else str(exc)).lower()  # asyncio rewords strerror
            raise ApiError(500, f"listen tcp {format_hostport(host, port)}: bind: {reason}") from exc
        bound = self._server.sockets[0].getsockname()
        self.listen = format_hostport(bound[0], bound[1])
        self.enabled = True

    async def stop(self) -> None:
        """Stop listening and close every connection, within ``STOP_WAIT_S``."""
        self.enabled = False
        server, self._server = self._server, None
        if server is not None:
            server.close()
            await settle_accepts()
        for connection in list(self._connections):
            connection.end("abort")
        clients = dict(self._clients)
        for task in clients:
            task.cancel()
        if clients:
            await asyncio.wait(list(clients), timeout=STOP_WAIT_S)
        for writer in clients.values():  # a client whose task was cancelled before it ever ran
            writer.transport.abort()
        await asyncio.sleep(0)  # let the transports' close callbacks run
        if server is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(STOP_WAIT_S):
                    await server.wait_closed()

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """``start_server``'s callback: a task of our own per client, so ``stop`` can close every client."""
        if self._server is None:  # accepted just before the listener closed, handed over just after
            writer.transport.abort()
            return
        task = asyncio.get_running_loop().create_task(self._serve(reader, writer, self._accepted))
        self._accepted += 1
        self._clients[task] = writer
        task.add_done_callback(self._forget)

    def _forget(self, task: asyncio.Task[None]) -> None:
        self._clients.pop(task, None)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int) -> None:
        joined = False
        try:
            if len(self._connections) >= self._max_connections:
                return
            upstream = await self._dial()
            if upstream is None:
                return
            connection = Connection((reader, writer), upstream, {d: list(c) for d, c in self.chains.items()},
                                    seed=f"{self._seed}:{number}")
            joined = True
            self._connections.add(connection)
            try:
                await connection.run()
            finally:
                self._connections.discard(connection)
        finally:
            if not joined:
                writer.close()
                with contextlib.suppress(OSError, TimeoutError):
                    async with asyncio.timeout(STOP_WAIT_S):
                        await writer.wait_closed()

    async def _dial(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        try:
            host, port = split_hostport(self.upstream)
            async with asyncio.timeout(self._dial_timeout_s):
                return await asyncio.open_connection(host or "127.0.0.1", port)
        except (OSError, TimeoutError, ApiError):
            return None

    # -- toxics -----------------------------------------------------------------------------------------
    def toxics(self) -> list[ToxicSpec]:
        return [toxic for direction in DIRECTIONS for toxic in self.chains[direction]]

    def find(self, name: str) -> ToxicSpec | None:
        return next((toxic for toxic in self.toxics() if toxic.name == name), None)

    def add_toxic(self, toxic: ToxicSpec) -> None:
        self.chains[toxic.direction].append(toxic)
        self._rechain(toxic.direction)

    def update_toxic(self, toxic: ToxicSpec) -> None:
        chain = self.chains[toxic.direction]
        chain[[t.name for t in chain].index(toxic.name)] = toxic
        self._rechain(toxic.direction)

    def remove_toxic(self, name: str) -> bool:
        toxic = self.find(name)
        if toxic is None:
            return False
        self.chains[toxic.direction].remove(toxic)
        self._rechain(toxic.direction)
        return True

    def remove_all_toxics(self) -> None:
        for direction in DIRECTIONS:
            if self.chains[direction]:
                self.chains[direction] = []
                self._rechain(direction)

    def _rechain(self, direction: str) -> None:
        for connection in list(self._connections):
            connection.links[direction].set_chain(self.chains[direction])
