"""``explore --shard K/N``: one search spread over N machines without a scheduler.

A search has two parts. The first pass gives every catalogue scenario one variation, in an order
drawn from the seed; shard K takes every N-th plan of that order, starting at the (K-1)-th, so the
shares are disjoint, their union is the whole first pass, and a shard's share depends only on the
seed, the catalogue and the search's options. After it, Hypothesis draws plans at will; each shard
draws from a stream of its own (``component_random(seed, "explore.shard.K/N")``), so shards do not
retrace each other's draws, and the same command always makes the same search. With one shard
(``1/1``, or no ``--shard``) the search is exactly the unsharded one.

Every plan still runs with the search's own seed, so a finding reproduces the same way whichever
shard found it. ``explore merge`` (``_merge``) puts the shards' report folders back together.

What it deliberately does not do: decide where shards run, wait for them, or run anything.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from durable_harness.harness._seeds import component_random
from durable_harness.harness._shard import Shard

__all__ = ["first_pass_share", "search_random"]

T = TypeVar("T")


def first_pass_share(first_pass: Sequence[T], shard: Shard | None) -> list[T]:
    """The plans of ``first_pass`` that ``shard`` runs, in their order: every N-th from the (K-1)-th.
    An empty share (more shards than plans) is allowed: the shard goes straight to drawing plans."""
    if shard is None:
        return list(first_pass)
    return list(first_pass[shard.index - 1::shard.count])


def search_random(seed: int, shard: Shard | None) -> random.Random:
    """The stream Hypothesis draws ``shard``'s plans from: the seed's own for one shard (today's
    search), a stream derived from (seed, K, N) for each of several."""
    if shard is None or shard.count == 1:
        return random.Random(seed)
    return component_random(seed, f"explore.shard.{shard.label}")
