"""The rule behind duplicate drafts and duplicate media: more than one remote object for one
business role of one job version (every job's, other tenants' included), judged from ground truth."""

from __future__ import annotations

from collections.abc import Callable

from durable_harness.harness.checkers._base import CheckInput, CheckResult, checker, creation_witnesses, pluralise
from durable_harness.harness.workloads import Effect, group_by_role

__all__ = ["duplicate_checker"]


def duplicate_checker(name: str, *, kind: str, noun: str) -> Callable[[CheckInput], CheckResult]:
    """Register (and return) the safety checker ``name`` over the effects of ``kind``."""

    @checker(name, "safety")
    def check(inp: CheckInput) -> CheckResult:
        groups = group_by_role(inp.workload.effects(inp.truth), kind)
        extra: list[int] = []
        involved: list[Effect] = []
        lines = []
        for (job, version, role), items in groups.items():
            if len(items) > 1:
                ids = [e.id for e in items]
                extra += ids[1:]
                involved += items
                lines.append(f"{job} v{version} {role}: {noun}s {ids}")
        if not extra:
            n = sum(len(v) for v in groups.values())
            return CheckResult(name, "safety", "pass", 0, f"{pluralise(n, noun)}, none duplicated")
        witnesses = []
        for route in sorted({e.route for e in involved}):
            witnesses += creation_witnesses(inp.history, involved[0].service, route,
                                            [e.id for e in involved if e.route == route])
        because = f"{pluralise(len(extra), 'duplicate ' + noun)}: " + "; ".join(lines)
        return CheckResult(name, "safety", "fail", len(extra), because, tuple(witnesses))
    return check
