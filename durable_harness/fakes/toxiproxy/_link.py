"""One proxied connection: two links (upstream: client -> server; downstream: server -> client), each
a chain of toxics between a reading task and the socket it writes to.

Each link reads its source in a task of its own and stamps every chunk with the time it was read;
its pump hands the chunks, in order, through the active toxics of the chain (``_toxics``) and
writes what comes out. The chain can change while the connection is open: a toxic added applies
from the next chunk, a toxic updated or removed is interrupted (it passes on what it holds at once)
and removing a ``timeout`` toxic ends the connections it ran on, as in Toxiproxy. Whether a toxic
runs on a link is drawn once, from the link's own seeded ``random.Random``, when the link meets
the toxic (at the link's start, or when the toxic is added or updated).

How a connection ends:
- a source's end is passed on as a half-close (``write_eof``); the connection is closed when both
  directions have ended. (Toxiproxy closes the whole connection at either end; passing the
  half-close on keeps a client that shuts its write side from losing the answer.)
- ``close`` (a toxic's, or a read error): what was written is flushed, then both sockets close.
- ``reset``: both sockets are closed with SO_LINGER 0, so both peers get a TCP reset (Toxiproxy
  does this only on connections opened after the ``reset_peer`` toxic existed; here it always does).
- ``abort`` (the proxy disabled, deleted or stopped; a write error): both sockets close at once.

What it deliberately does not do: accept or dial (``_proxy``), parse anything, or keep statistics.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn

from durable_harness.fakes.toxiproxy._model import ToxicSpec
from durable_harness.fakes.toxiproxy._toxics import TOXICS, Toxic

__all__ = ["Connection"]

READ_BYTES = 65536
READ_AHEAD_CHUNKS = 8
CLOSE_WAIT_S = 2.0
_LINGER_ZERO = struct.pack("ii", 1, 0)


class _Stopped(Exception):
    """Unwinds a pump once its connection is ending."""


@dataclass
class _Chunk:
    data: bytes
    read_at: float


@dataclass
class _Eof:
    error: bool  # the source failed rather than ended


class _Wake:
    """The chain changed: the pump recomputes its idle deadlines."""


class _Stage:
    """One toxic on one link: its behaviour, whether its toxicity draw ran it, and its interrupt."""

    def __init__(self, spec: ToxicSpec, rng: random.Random, now: float) -> None:
        self.spec = spec
        self.toxic: Toxic = TOXICS[spec.type](spec.attrs())
        self.active = rng.random() < spec.toxicity
        self.interrupted = asyncio.Event()
        self.started_at = now


class _Pipe:
    """The ``Pipe`` one stage gets: forwarding goes to the stages after it in the chain it started with."""

    def __init__(self, link: _Link, stages: Sequence[_Stage], index: int) -> None:
        self._link, self._stages, self._index = link, stages, index
        self.rng = link.rng
        self.state = link.states.setdefault(stages[index].spec.name, {})

    def now(self) -> float:
        return self._link.now()

    async def forward(self, data: bytes, read_at: float) -> None:
        await self._link.through(self._stages, self._index + 1, data, read_at)

    async def forward_eof(self) -> None:
        await self._link.eof(self._stages, self._index + 1)

    async def sleep(self, seconds: float, *, interruptible: bool = True) -> bool:
        interrupted = self._stages[self._index].interrupted
        if not interruptible:
            await asyncio.sleep(max(0.0, seconds))
            return True
        if interrupted.is_set():
            return False
        if seconds <= 0:
            return True
        try:
            async with asyncio.timeout(seconds):
                await interrupted.wait()
        except TimeoutError:
            return True
        return False

    async def close(self) -> NoReturn:
        self._link.conn.end("close")
        raise _Stopped

    def reset(self) -> NoReturn:
        self._link.conn.end("reset")
        raise _Stopped


class _Link:
    """One direction of a connection: a reader task, a pump task and the chain between them."""

    def __init__(self, conn: Connection, direction: str, source: asyncio.StreamReader,
                 sink: asyncio.StreamWriter, rng: random.Random, chain: Sequence[ToxicSpec]) -> None:
        self.conn, self.direction, self.rng = conn, direction, rng
        self._source, self._sink = source, sink
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[_Chunk | _Eof | _Wake] = asyncio.Queue()
        self._room = asyncio.Semaphore(READ_AHEAD_CHUNKS)
        self._last_input_at = self.now()
        self.states: dict[str, dict[str, int]] = {}
        self.stages = [_Stage(spec, rng, self.now()) for spec in chain]

    def now(self) -> float:
        return self._loop.time()

    # -- the chain ------------------------------------------------------------------------------------
    def set_chain(self, chain: Sequence[ToxicSpec]) -> None:
        old = {stage.spec.name: stage for stage in self.stages}
        stages: list[_Stage] = []
        for spec in chain:
            stage = old.pop(spec.name, None)
            if stage is not None and stage.spec != spec:
                stage.interrupted.set()
                stage = None
            stages.append(stage or _Stage(spec, self.rng, self.now()))
        self.stages = stages
        ends = False
        for name, removed in old.items():
            removed.interrupted.set()
            self.states.pop(name, None)
            ends = ends or (removed.active and removed.toxic.closes_on_removal)
        self._queue.put_nowait(_Wake())
        if ends:
            self.conn.end("close")

    # -- the tasks ------------------------------------------------------------------------------------
    async def read(self) -> None:
        try:
            while True:
                await self._room.acquire()
                data = await self._source.read(READ_BYTES)
                if not data:
                    self._queue.put_nowait(_Eof(error=False))
                    return
                self._queue.put_nowait(_Chunk(data, self.now()))
        except OSError:
            self._queue.put_nowait(_Eof(error=True))

    async def pump(self) -> None:
        try:
            while True:
                item = await self._next()
                if isinstance(item, _Chunk):
                    self._room.release()
                    self._last_input_at = item.read_at
                    await self.through(self.stages, 0, item.data, item.read_at)
                elif isinstance(item, _Eof):
                    if item.error:
                        self.conn.end("close")
                        return
                    await self.eof(self.stages, 0)
                    return
                elif isinstance(item, _Stage):
                    await item.toxic.on_idle(_Pipe(self, self.stages, self.stages.index(item)))
        except _Stopped:
            return
        except OSError:
            self.conn.end("abort")

    async def _next(self) -> _Chunk | _Eof | _Stage:
        """The next chunk or end, or a stage whose idle timeout ran out first."""
        while True:
            due = [(max(self._last_input_at, s.started_at) + t, s) for s in self.stages
                   if s.active and (t := s.toxic.idle_timeout_s()) is not None]
            if not due:
                item = await self._queue.get()
            else:
                deadline, stage = min(due, key=lambda pair: pair[0])
                try:
                    async with asyncio.timeout_at(deadline):
                        item = await self._queue.get()
                except TimeoutError:
                    return stage
            if not isinstance(item, _Wake):
                return item

    # -- through the chain ------------------------------------------------------------------------------
    async def through(self, stages: Sequence[_Stage], index: int, data: bytes, read_at: float) -> None:
        while index < len(stages) and not stages[index].active:
            index += 1
        if index < len(stages):
            await stages[index].toxic.on_chunk(data, read_at, _Pipe(self, stages, index))
            return
        if self.conn.ending:
            raise _Stopped
        self._sink.write(data)
        await self._sink.drain()

    async def eof(self, stages: Sequence[_Stage], index: int) -> None:
        while index < len(stages) and not stages[index].active:
            index += 1
        if index < len(stages):
            await stages[index].toxic.on_eof(_Pipe(self, stages, index))
            return
        if self._sink.can_write_eof():
            self._sink.write_eof()
        self.conn.direction_ended(self.direction)
        raise _Stopped


class Connection:
    """A client connection and its upstream connection, joined by two links until one of them ends it."""

    def __init__(self, client: tuple[asyncio.StreamReader, asyncio.StreamWriter],
                 upstream: tuple[asyncio.StreamReader, asyncio.StreamWriter],
                 chains: dict[str, Sequence[ToxicSpec]], seed: str) -> None:
        self._writers = (client[1], upstream[1])
        self.links = {
            "upstream": _Link(self, "upstream", client[0], upstream[1], random.Random(f"{seed}:upstream"),
                              chains["upstream"]),
            "downstream": _Link(self, "downstream", upstream[0], client[1], random.Random(f"{seed}:downstream"),
                                chains["downstream"]),
        }
        self._ended_directions: set[str] = set()
        self._mode = "abort"
        self._done = asyncio.Event()

    @property
    def ending(self) -> bool:
        return self._done.is_set()

    def end(self, mode: str) -> None:
        """End the connection: ``close`` (flush, then close), ``reset`` (TCP reset) or ``abort``. The first
        wins, except that an ``abort`` (the proxy stopping) cuts short a close still flushing."""
        if not self._done.is_set():
            self._mode = mode
            self._done.set()
        elif mode == "abort":
            for writer in self._writers:
                writer.transport.abort()

    def direction_ended(self, direction: str) -> None:
        self._ended_directions.add(direction)
        if len(self._ended_directions) == 2:
            self.end("close")

    async def run(self) -> None:
        """Pump both ways until the connection ends (or this task is cancelled), then close both sockets."""
        tasks = [asyncio.create_task(coro) for link in self.links.values() for coro in (link.read(), link.pump())]
        try:
            await self._done.wait()
        finally:
            for task in tasks:
                task.cancel()
            self._shut()  # before any await: a second cancellation must not leave a socket open
            await asyncio.wait(tasks, timeout=CLOSE_WAIT_S)
            for writer in self._writers:
                try:
                    async with asyncio.timeout(CLOSE_WAIT_S):
                        await writer.wait_closed()
                except (TimeoutError, OSError):
                    writer.transport.abort()

    def _shut(self) -> None:
        for writer in self._writers:
            if self._mode == "reset":
                sock = writer.get_extra_info("socket")
                if sock is not None:
                    with contextlib.suppress(OSError):
                        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _LINGER_ZERO)
            if self._mode == "close":
                writer.close()  # after what was already written has gone out
            else:
                writer.transport.abort()
