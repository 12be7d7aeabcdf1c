"""The findings of a report: what a reviewer must act on, most serious first.

A *finding* is one counter (a checker's name) that did not pass, with every run it did not pass in:
each with its "because", its witnesses and its reproduce command. A run that could not be judged
is a finding too (named ``error: <kind>``), and so is a run whose verdict is not ``pass`` although
none of its checkers says why (a determinism difference, a fault that never fired, no checker at
all), named ``verdict``.

Findings are ordered as exit codes win over each other (``durable_harness.harness.verdict.SEVERITY``): safety
failures, then runs that could not be judged, then liveness failures, then unknowns; among equals,
in the order of the design's acceptance table (``duplicate_drafts`` first), then the finding in more
runs first, then by name. Every renderer (Markdown, HTML, the terminal, Allure)
takes its "top findings" from here, so they always agree.

This module reads validated documents and formats nothing; it decides no verdict (the runs carry
their own) and never drops a finding, only orders them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._documents import in_report_order
from ._facts import ERROR_WORDS, counter_names, faults_with

__all__ = ["Finding", "FindingItem", "findings"]

Doc = Mapping[str, Any]
# (verdict, class) in the order their exit codes win: 1 (safety fail), 3 (error), 2 (liveness fail, unknown).
_RANK = {("fail", "safety"): 0, ("error", "error"): 1, ("fail", "liveness"): 2, ("unknown", "safety"): 3,
         ("unknown", "liveness"): 3, ("unknown", "verdict"): 4, ("fail", "verdict"): 2}


@dataclass(frozen=True)
class FindingItem:
    """One run in which a finding holds."""

    run: Doc
    verdict: str
    count: int
    because: str
    witnesses: tuple[Doc, ...]

    @property
    def scenario(self) -> str:
        return str(self.run["scenario"]["id"])

    @property
    def reproduce(self) -> str:
        return str(self.run["reproduce"])


@dataclass(frozen=True)
class Finding:
    """A counter (or ``error: <kind>``, or ``verdict``) that did not pass, and where."""

    name: str
    cls: str  # safety | liveness | error | verdict
    verdict: str  # fail | unknown | error
    items: tuple[FindingItem, ...]

    @property
    def scenarios(self) -> list[str]:
        return [item.scenario for item in self.items]

    @property
    def rank(self) -> int:
        return _RANK.get((self.verdict, self.cls), 4)


def findings(runs: Sequence[Doc]) -> list[Finding]:
    """Every finding of ``runs``, most serious first (see the module docstring)."""
    grouped: dict[tuple[str, str, str], list[FindingItem]] = {}
    for run in in_report_order(runs):
        for key, item in _items(run):
            grouped.setdefault(key, []).append(item)
    found = [Finding(name, cls, verdict, tuple(items)) for (name, cls, verdict), items in grouped.items()]
    order = {name: n for n, name in enumerate(counter_names(runs))}
    return sorted(found, key=lambda f: (f.rank, order.get(f.name, len(order)), -len(f.items), f.name))


def _items(run: Doc) -> list[tuple[tuple[str, str, str], FindingItem]]:
    error = run["error"]
    if error is not None:
        kind = str(error["kind"])
        message = str(error["message"]).strip().splitlines()[0] if str(error["message"]).strip() else kind
        item = FindingItem(run, "error", 0, f"{ERROR_WORDS[kind]}: {message}", ())
        return [((f"error: {kind}", "error", "error"), item)]
    found = []
    for checker in run["checkers"]:
        verdict = str(checker["verdict"])
        if verdict == "pass":
            continue
        item = FindingItem(run, verdict, int(checker["count"]), str(checker["because"]),
                           tuple(checker["witnesses"]))
        found.append(((str(checker["name"]), str(checker["class"]), verdict), item))
    if not found and run["verdict"] != "pass":
        verdict = str(run["verdict"])
        found.append((("verdict", "verdict", verdict), FindingItem(run, verdict, 0, _unexplained(run), ())))
    return found


def _unexplained(run: Doc) -> str:
    """Why a run without a failing checker is not green, in one line."""
    unfired = [str(f["kind"]) for f in faults_with(run, "unfired")]
    if unfired:
        return f"scheduled faults did not fire: {', '.join(unfired)}; nothing was tested"
    det = run["determinism"]
    if det is not None and not det["same"]:
        return "the same seed gave two different histories"
    if not run["checkers"]:
        return "no checker ran, so nothing was proven"
    return f"safety {run['safety']}, liveness {run['liveness']}"
