"""``--shard K/N``: a deterministic slice of what a command would run, for CI matrices.

The items (scenario × seed × candidate for ``run``, crash points for ``sweep``) are sorted by a
stable key — the scenario id, the seed the run will use, the candidate spec — and dealt out round
robin: the j-th item in that order goes to shard ``j mod N + 1``. Every item is in exactly one
shard, shards differ in size by at most one, and the slice depends only on the items, never on the
machine, the order files were listed in, or the time. ``durable-harness merge`` puts the shards'
reports back together.

This module parses and slices; it does not run anything, and it refuses a slice that would be
empty (more shards than items) rather than report a green nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["Shard", "ShardError", "parse_shard", "select"]

T = TypeVar("T")
_SPEC = re.compile(r"([0-9]{1,6})/([0-9]{1,6})")


class ShardError(ValueError):
    """A shard spec that cannot be used; the message is one line and says how to fix it."""


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    @property
    def label(self) -> str:
        return f"{self.index}/{self.count}"

    def to_json(self) -> dict[str, int]:
        return {"index": self.index, "count": self.count}


def parse_shard(text: str) -> Shard:
    """``"2/4"`` -> ``Shard(2, 4)``; anything else is a ``ShardError``."""
    match = _SPEC.fullmatch(text.strip())
    if match is None:
        raise ShardError(f"--shard {text!r} must be K/N with whole numbers, e.g. --shard 2/4 (slice 2 of 4)")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ShardError(f"--shard {text!r}: K must be 1 to N and N at least 1, e.g. --shard 1/{max(count, 2)}")
    return Shard(index, count)


def select(items: Sequence[T], key: Callable[[T], Any], shard: Shard, noun: str = "scenarios") -> list[T]:
    """The items of ``shard``, in their given order."""
    if shard.count > len(items):
        raise ShardError(f"--shard {shard.label}: only {len(items)} {noun} to share among {shard.count} shards, "
                         f"so a shard would be empty; use at most {len(items)} shards")
    order = sorted(range(len(items)), key=lambda i: key(items[i]))
    chosen = {i for rank, i in enumerate(order) if rank % shard.count == shard.index - 1}
    return [item for i, item in enumerate(items) if i in chosen]
