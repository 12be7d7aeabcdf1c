"""duplicate effects: "never twice" for every kind of effect a workload maps that no named checker
judges (``duplicate_drafts`` and ``duplicate_media`` keep the acceptance table's names for posts and
uploads): a new workload's effect on a new service, done twice for one role of one job version, is
caught with the creations as witnesses, and no checker of its own. It applies only to workloads
that map such a kind."""

from __future__ import annotations

from durable_harness.harness.checkers._base import CheckInput, Finding, checker
from durable_harness.harness.checkers._duplicates import judge, other_kinds


@checker("duplicate_effects", "safety", rank=30, applies=lambda w: bool(other_kinds(w)))
def check(inp: CheckInput) -> Finding:
    return judge(inp, "duplicate_effects", list(other_kinds(inp.workload)), lambda kind: kind)
