"""The rule behind duplicate drafts and duplicate media, "never twice": more than one remote object
for one business role of one job version (every job's, other tenants' included), judged from ground
truth. A checker per effect kind that the acceptance table names (``duplicate_drafts`` for posts,
``duplicate_media`` for uploads); ``duplicate_effects`` for every other kind a workload maps, so that
a new workload's effect on a new service is never done twice unseen, with no checker of its own."""

from __future__ import annotations

from collections.abc import Callable

from durable_harness.harness.checkers._base import CheckInput, Finding, checker, creation_witnesses, listed, pluralise
from durable_harness.harness.workloads import Effect, Workload, group_by_role

__all__ = ["NAMED_KINDS", "duplicate_checker", "other_kinds"]

NAMED_KINDS: set[str] = set()  # the effect kinds a named duplicate checker judges


def other_kinds(workload: Workload) -> tuple[str, ...]:
    """The effect kinds of ``workload`` that no named duplicate checker judges."""
    return tuple(k for k in workload.effect_kinds if k not in NAMED_KINDS)


def duplicate_checker(name: str, *, kind: str, noun: str, rank: int) -> Callable[[CheckInput], Finding]:
    """Register (and return) the safety checker ``name`` over the effects of ``kind``: it applies to
    the workloads that map that kind."""
    NAMED_KINDS.add(kind)

    @checker(name, "safety", applies=lambda w: kind in w.effect_kinds, rank=rank)
    def check(inp: CheckInput) -> Finding:
        return judge(inp, name, [kind], lambda _kind: noun)
    return check


def judge(inp: CheckInput, name: str, kinds: list[str], noun: Callable[[str], str]) -> Finding:
    """More than one effect of a kind in ``kinds`` for one (job, version, role): each beyond the first."""
    extra: list[int] = []
    involved: list[Effect] = []
    lines = []
    n = 0
    effects = inp.workload.effects(inp.truth)
    for kind in kinds:
        groups = group_by_role(effects, kind)
        n += sum(len(v) for v in groups.values())
        for (job, version, role), items in groups.items():
            if len(items) > 1:
                extra += [e.id for e in items[1:]]
                involved += items
                lines.append(f"{job} v{version} {role}: {noun(kind)}s [{listed([e.id for e in items])}]")
    if not extra:
        what = pluralise(n, noun(kinds[0])) if len(kinds) == 1 else f"{n} effects of {', '.join(kinds)}"
        return Finding("pass", 0, f"{what}, none duplicated")
    witnesses = []
    for service, route in sorted({(e.service, e.route) for e in involved}):
        witnesses += creation_witnesses(inp.history, service, route,
                                        [e.id for e in involved if (e.service, e.route) == (service, route)])
    nouns = {noun(e.kind) for e in involved}
    because = (f"{pluralise(len(extra), 'duplicate ' + nouns.pop()) if len(nouns) == 1 else f'{len(extra)} duplicates'}: "
               + listed(lines, "; "))
    return Finding("fail", len(extra), because, tuple(witnesses))
