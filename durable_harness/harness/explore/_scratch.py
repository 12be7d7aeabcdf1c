"""The systematic pass from scratch: every single fault and every single action, once, before the
search draws at will.

Built from the clean run alone (its channels and the conditions triggers may name), never from the
catalogue: each kind of request fault at the first match of each channel it can act on (a crash on
either side of its request), each stream fault on each stream, each person's action at each
condition it can wait for, in the world as written, with each kind's parameters at their defaults
(a kind that cannot do without one is refused by the loader, and not run).
The simplest plans first, all of them, as a crash sweep tries every point: a bug one fault shows is
found here, whatever the draws would have favoured. The kinds take turns (every kind's first plan,
then every kind's second, ...: a bug of any kind is met early), in an order drawn from the seed;
a request fault's plans on writes (requests that are not GETs) come before those on reads, a
stale read's and a listing lag's the other way round.

What it deliberately does not do: combine faults, move them (``nth``), repeat them or change the
world: that is the search's work after it (and the guided search's, from what these plans reached).
"""

from __future__ import annotations

from collections.abc import Sequence

from durable_harness.harness._seeds import component_random
from durable_harness.harness.actions import action_kinds, get_action_kind
from durable_harness.harness.explore._plans import Plan
from durable_harness.harness.explore._strategies import Channel, usable_channels, with_requirements
from durable_harness.harness.faults import fault_kinds, get_fault_kind

__all__ = ["scratch_plans"]

_READ_KINDS = ("stale_read", "listing_lag")  # faults of what a read answers: reads first


def scratch_plans(channels: Sequence[Channel], conditions: Sequence[str], workload: str, *, seed: int,
                  kinds: Sequence[str] | None = None, actions: bool = True) -> list[Plan]:
    """One plan per (fault kind, channel it acts on) and per (action kind, condition), in turns: each
    kind's first plan, then each kind's second, ..., a kind's writes before its reads."""
    rng = component_random(seed, "explore.scratch")
    by_kind: dict[str, list[Plan]] = {}
    for kind in fault_kinds():
        cls = get_fault_kind(kind)
        if (kinds is not None and kind not in kinds) or (cls.workloads is not None and workload not in cls.workloads) \
                or (cls.drivers is not None and "python" not in cls.drivers):
            continue
        writes: list[Plan] = []
        reads: list[Plan] = []
        for channel in usable_channels(kind, cls.services, channels):
            at = {"service": channel.service, "method": channel.method, "route": channel.route, "nth": 1}
            for point in ("before", "after") if kind == "crash" else (None,):
                entry = {"kind": kind, "at": at, **({"point": point} if point else {})}
                (reads if channel.method == "GET" else writes).append(Plan(workload, (entry,), {}))
        rng.shuffle(writes)
        rng.shuffle(reads)
        by_kind[kind] = (reads + writes) if kind in _READ_KINDS else (writes + reads)
    for kind in action_kinds() if actions else ():
        cls = get_action_kind(kind)
        if (kinds is not None and kind not in kinds) or (cls.workloads is not None and workload not in cls.workloads):
            continue
        plans = [Plan(workload, with_requirements(({"kind": kind, "when": condition},)), {}) for condition in conditions]
        rng.shuffle(plans)
        by_kind[kind] = plans
    order = sorted(by_kind)
    rng.shuffle(order)
    turns: list[Plan] = []
    for i in range(max((len(p) for p in by_kind.values()), default=0)):
        turns.extend(by_kind[kind][i] for kind in order if i < len(by_kind[kind]))
    seen: set[str] = set()
    unique = []
    for plan in turns:
        if plan.key() not in seen:
            seen.add(plan.key())
            unique.append(plan)
    return unique
