"""``durable-harness list``: what there is to run and to run it against, from the registries."""

from __future__ import annotations

from collections.abc import Sequence

from durable_harness.harness.scenario import Scenario

__all__ = ["listing"]


def listing(scenarios: Sequence[Scenario]) -> str:
    from durable_harness.harness.candidate import candidate_names, describe_candidate
    from durable_harness.harness.checkers import checkers
    from durable_harness.harness.faults import fault_kinds
    from durable_harness.harness.services import services
    from durable_harness.harness.workloads import workload_names

    from durable_harness.harness.services._applicability import not_applicable
    from durable_harness.harness.services._upstream import REAL_SERVICES, Upstream

    lines = ["scenarios (real NAME: whether it runs against a real " + " or ".join(REAL_SERVICES) + ", --service):"]
    for s in scenarios:
        verdicts = []
        for name in REAL_SERVICES:
            why = not_applicable(s, {name: Upstream(name, "http://real.invalid", "", "")})
            verdicts.append(f"real {name}: yes" if why is None else f"real {name}: no ({why})")
        lines.append(f"  {s.id:34} {s.title}  [must catch: {', '.join(s.must_catch) or '-'}; {'; '.join(verdicts)}]")
    lines.append("candidates:")
    lines += [f"  {name:36} {describe_candidate(name)}" for name in candidate_names()]
    lines.append("workloads:\n  " + ", ".join(workload_names()))
    lines.append("services:")
    for spec in services():
        extra = f" (also triggers on: {', '.join(spec.channels)})" if spec.channels else ""
        lines.append(f"  {spec.name}{extra}")
        lines += [f"    while: {name}: {what}" for name, what in sorted(spec.conditions.items())]
    lines.append("fault kinds:\n  " + ", ".join(fault_kinds()))
    lines.append("checkers:")
    lines += [f"  {c.name:28} {c.klass}" for c in checkers()]
    return "\n".join(lines)
