"""What a plan's run reached: what guides the search to plans that do something new.

Two kinds of reach, as strings in one set, so that any candidate has some:

* ``line:<file>:<n>`` — a line of the candidate's own code its instances ran (Python candidates in
  forked instances: ``isolation/_reach``);
* the shape of what it did, read from the history, for any candidate (a process in any language
  too): each request as ``req:<service> <method> <route with ids as {id}> -> <answer> <status>``,
  each fault as ``fault:<kind>:<point>:<status>``, each state the candidate reported as
  ``state:<phase>/<outcome>`` and each reported operation as ``op:<kind>:<state>``.

The explorer keeps the union of everything reached so far; a plan that adds to it joins the corpus
the search varies (``explore``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from durable_harness.harness._history import History

__all__ = ["Guide", "history_shapes", "route_pattern"]


def route_pattern(route: str) -> str:
    """A route with its ids as ``{id}`` (``/agents/sessions/sess_0001/events`` -> ``.../{id}/events``)."""
    parts = route.split("/")
    return "/".join("{id}" if (any(c.isdigit() for c in p) and p not in ("v1", "v2")) else p for p in parts)


def history_shapes(history: History) -> set[str]:
    """The shapes of a run's requests, faults and reported states (see the module's text)."""
    shapes: set[str] = set()
    for invoke, done in history.operations():
        if not invoke.process.startswith("worker-"):
            continue
        data = invoke.data
        answer = "open" if done is None else f"{done.type} {done.data.get('status', '-')}"
        shapes.add(f"req:{data.get('service')} {data.get('method')} {route_pattern(str(data.get('route')))} -> {answer}")
    for entry in history.of_type("fault"):
        evidence = entry.data.get("evidence")
        status = evidence.get("status", "-") if isinstance(evidence, Mapping) else "-"
        shapes.add(f"fault:{entry.data.get('kind')}:{entry.data.get('point', '-')}:{status}")
    for entry in history.of_type("report"):
        shapes.update(_report_shapes(entry.data))
    return shapes


def _report_shapes(report: Mapping[str, Any]) -> Iterable[str]:
    checkpoint = report.get("checkpoint")
    phase = checkpoint.get("phase") if isinstance(checkpoint, Mapping) else None
    yield f"state:{phase}/{report.get('outcome')}"
    operations = report.get("operations")
    for op in operations if isinstance(operations, list) else ():
        if isinstance(op, Mapping):
            yield f"op:{op.get('kind', op.get('tool', '-'))}:{op.get('state', op.get('status', '-'))}"


class Guide:
    """The guided search's memory: everything reached so far, and the plans that reached some of it
    first. ``picks`` is the corpus the search varies (``_strategies.plans(reached=...)``): each such
    plan, the cheap ones several times over (a plan whose run took few steps is tried more often, as
    fuzzers favour fast inputs: a plan that waits out its deadline costs tens of cheap ones)."""

    FAVOUR = 4  # the cheapest plan appears this many times in ``picks``; one of K times its cost, K/4 rounded up

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.plans: list[Any] = []  # ``Plan``s, in the order they reached something new
        self._costs: list[float] = []
        self.picks: list[Any] = []

    def saw(self, plan: Any, doc: Mapping[str, Any] | None) -> bool:
        """Account for ``plan``'s run; whether it reached something no plan had."""
        reach = doc.get("reach") if doc is not None else None
        new = set(reach or ()) - self.seen
        if not new:
            return False
        assert doc is not None
        self.seen |= new
        self.plans.append(plan)
        self._costs.append(max(1.0, float((doc.get("timings") or {}).get("steps") or 1)))
        cheapest = min(self._costs)
        self.picks[:] = [p for p, cost in zip(self.plans, self._costs)
                         for _ in range(max(1, round(self.FAVOUR * cheapest / cost)))]
        return True

    def lines(self) -> int:
        return sum(1 for r in self.seen if r.startswith("line:"))
