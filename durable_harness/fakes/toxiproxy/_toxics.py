"""The toxics: what each does to the bytes of one direction of one connection, one class each.

A toxic is registered by its Toxiproxy type name when its class is defined (a duplicate name fails
at import). The link (``_link``) makes one instance per toxic per link and hands it each chunk it
read, with the time it was read, through a ``Pipe``: ``forward`` passes bytes on to the next toxic
(and finally to the socket), ``sleep`` waits on the event loop's clock and reports whether the
toxic was updated or removed meanwhile (a toxic then passes what it holds on at once, as
Toxiproxy's do when interrupted), ``close`` ends the connection after what was forwarded, and
``reset`` ends it with a TCP reset. Randomness (jitter, slice sizes) comes from the link's seeded
``random.Random``.

Times are in milliseconds (the slicer's delay in microseconds) and sizes in bytes, as in Toxiproxy;
bandwidth is in KB/s with KB = 1000 bytes.

What it deliberately does not do: sockets, tasks, or decide which toxics run (the toxicity draw is
the link's), and it does not copy Toxiproxy's endless recursion for a slicer of average size 0:
such a slicer is refused when it is created.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import ClassVar, NoReturn, Protocol

__all__ = [
    "TOXICS",
    "Pipe",
    "Toxic",
    "slice_sizes",
    "validate_attributes",
]


class Pipe(Protocol):
    """What a toxic sees of its link while it handles one chunk or the end of the stream."""

    rng: random.Random
    state: dict[str, int]  # this toxic's per-link state; kept when the toxic is updated

    def now(self) -> float: ...

    async def forward(self, data: bytes, read_at: float) -> None: ...

    async def forward_eof(self) -> None: ...

    async def sleep(self, seconds: float, *, interruptible: bool = True) -> bool: ...

    async def close(self) -> NoReturn: ...

    def reset(self) -> NoReturn: ...


TOXICS: dict[str, type[Toxic]] = {}


class Toxic:
    """A toxic's behaviour on one link. The base class passes everything through (``noop``)."""

    type_name: ClassVar[str] = ""
    attributes: ClassVar[tuple[str, ...]] = ()
    closes_on_removal: ClassVar[bool] = False  # removing it ends the connections it ran on

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.type_name in TOXICS:
            raise TypeError(f"toxic type {cls.type_name!r} is registered twice ({TOXICS[cls.type_name].__name__}, "
                            f"{cls.__name__}); give the new one another type_name")
        TOXICS[cls.type_name] = cls

    def __init__(self, attributes: Mapping[str, int]) -> None:
        self.attrs = dict(attributes)

    async def on_chunk(self, data: bytes, read_at: float, pipe: Pipe) -> None:
        await pipe.forward(data, read_at)

    async def on_eof(self, pipe: Pipe) -> None:
        await pipe.forward_eof()

    def idle_timeout_s(self) -> float | None:
        """After this long without incoming data the link calls ``on_idle``; None for never."""
        return None

    async def on_idle(self, pipe: Pipe) -> None:
        return None


class NoopToxic(Toxic):
    type_name = "noop"


class LatencyToxic(Toxic):
    """Each chunk leaves ``latency`` ± ``jitter`` ms after it was read; delays do not add up across chunks."""

    type_name = "latency"
    attributes = ("latency", "jitter")

    def delay_s(self, rng: random.Random) -> float:
        delay_ms = self.attrs["latency"]
        jitter_ms = self.attrs["jitter"]
        if jitter_ms > 0:
            delay_ms += rng.randrange(2 * jitter_ms) - jitter_ms
        return delay_ms / 1000

    async def on_chunk(self, data: bytes, read_at: float, pipe: Pipe) -> None:
        due = read_at + self.delay_s(pipe.rng)
        if await pipe.sleep(due - pipe.now()) and due > read_at:
            read_at = due  # a toxic after this one counts from here, as stacked latencies do
        await pipe.forward(data, read_at)


class BandwidthToxic(Toxic):
    """At most ``rate`` KB/s (rate <= 0: unlimited); a large chunk goes out as rate x 100 bytes every 100 ms."""

    type_name = "bandwidth"
    attributes = ("rate",)
    _STEP_S = 0.1

    def __init__(self, attributes: Mapping[str, int]) -> None:
        super().__init__(attributes)
        self._owed_s = 0.0  # time owed for bytes already sent; negative when a sleep overshot

    async def on_chunk(self, data: bytes, read_at: float, pipe: Pipe) -> None:
        rate = self.attrs["rate"]
        if rate <= 0:
            await pipe.forward(data, read_at)
            return
        self._owed_s += len(data) / (rate * 1000)
        piece = rate * 100
        while len(data) > piece and self._owed_s > self._STEP_S:
            if not await pipe.sleep(self._STEP_S):
                break
            await pipe.forward(data[:piece], read_at)
            data = data[piece:]
            self._owed_s -= self._STEP_S
        started = pipe.now()
        if await pipe.sleep(self._owed_s):
            self._owed_s -= pipe.now() - started
        else:
            self._owed_s = 0.0
        await pipe.forward(data, read_at)


class SlowCloseToxic(Toxic):
    """Data passes; the close that follows the source's end is held back ``delay`` ms."""

    type_name = "slow_close"
    attributes = ("delay",)

    async def on_eof(self, pipe: Pipe) -> None:
        await pipe.sleep(self.attrs["delay"] / 1000)
        await pipe.forward_eof()


class TimeoutToxic(Toxic):
    """Drops all data; closes after ``timeout`` ms without incoming data (0: never, until it is removed)."""

    type_name = "timeout"
    attributes = ("timeout",)
    closes_on_removal = True

    async def on_chunk(self, data: bytes, read_at: float, pipe: Pipe) -> None:
        return None

    def idle_timeout_s(self) -> float | None:
        timeout_ms = self.attrs["timeout"]
        return timeout_ms / 1000 if timeout_ms > 0 else None

    async def on_idle(self, pipe: Pipe) -> None:
        await pipe.close()


class ResetToxic(Toxic):
    """On the first chunk (or the end) in its direction: wait ``timeout`` ms, drop the data, reset the connection."""

    type_name = "reset_peer"
    attributes = ("timeout",)

    async def on_chunk(self, data: bytes, read_at: float, pipe: Pipe) -> None:
        await self._reset(pipe)

    async def on_eof(self, pipe: Pipe) -> None:
        await self._reset(pipe)

    async def _reset(self, pipe: Pipe) -> NoReturn:
        await pipe.sleep(self.attrs["timeout"] / 1000, interruptible=False)
        pipe.reset()


class LimitDataToxic(Toxic):
    """Forwards exactly ``bytes`` bytes in its direction (the count survives updates), then closes."""

    type_name = "limit_data"
    attributes = ("bytes",)

    async def on_chunk(self, data: bytes, read_at: float, pipe: Pipe) -> None:
        limit = self.attrs["bytes"]
        sent = pipe.state.get("sent", 0)
        part = data[:max(0, limit - sent)]
        if part:
            await pipe.forward(part, read_at)
            sent += len(part)
            pipe.state["sent"] = sent
        if limit - sent <= 0:
            await pipe.close()


def slice_sizes(total: int, average: int, variation: int, rng: random.Random) -> list[int]:
    """Piece sizes of ``average`` ± ``variation`` bytes (at least 1) that add up to ``total``."""
    sizes: list[int] = []
    left = total
    while left > 0:
        size = max(1, average + (rng.randint(-variation, variation) if variation > 0 else 0))
        sizes.append(min(size, left))
        left -= sizes[-1]
    return sizes


class SlicerToxic(Toxic):
    """Cuts chunks into pieces of ``average_size`` ± ``size_variation`` bytes, ``delay`` µs apart."""

    type_name = "slicer"
    attributes = ("average_size", "size_variation", "delay")

    async def on_chunk(self, data: bytes, read_at: float, pipe: Pipe) -> None:
        offset = 0
        for size in slice_sizes(len(data), self.attrs["average_size"], self.attrs["size_variation"], pipe.rng):
            await pipe.forward(data[offset:offset + size], read_at)
            offset += size
            if offset < len(data) and not await pipe.sleep(self.attrs["delay"] / 1e6):
                await pipe.forward(data[offset:], read_at)
                return


def validate_attributes(type_name: str, attrs: Mapping[str, int]) -> str | None:
    """Why these attributes cannot run, or None. Only what would hang or crash is refused."""
    if type_name == "slicer":
        if attrs["average_size"] <= 0:
            return (f"slicer average_size must be above 0, got {attrs['average_size']} "
                    "(Toxiproxy itself would never finish slicing)")
        if attrs["size_variation"] < 0:
            return f"slicer size_variation must be 0 or more, got {attrs['size_variation']}"
    return None
