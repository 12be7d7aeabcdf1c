"""The checker interface: pure functions of one run's history, ground truth and claims.

A checker returns a ``Finding``: pass / fail / unknown with a count, a one-line "because" and
witnesses (the history entries that prove it). ``@checker`` registers it by name and class, and the
engine stamps both on what it found (a checker never spells its own name). Checkers apply by rule:
the core ones to every workload, the others where their rule takes a workload. A checker that
raises, or returns something other than a ``Finding``, yields ``unknown`` (never pass) and marks
the run as a harness error: a broken checker is the harness's fault, not the candidate's. Verdicts
combine by ``durable_harness.harness.verdict``. ``rank`` orders checkers for display (the design's
acceptance table first); each run document lists its checkers in that order, so the reports never
name a checker of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from durable_harness.harness._history import Entry, History
from durable_harness.harness._registry import Registry
from durable_harness.harness.scenario import Scenario
from durable_harness.harness.verdict import VERDICTS, Verdict
from durable_harness.harness.workloads import Outcome, Workload, get_workload

__all__ = [
    "CheckInput", "CheckResult", "Checker", "Finding", "Witness", "applicable", "checker", "checker_names",
    "checkers", "creation_witnesses", "failed", "final_report_witness", "passed", "pluralise", "run_checkers",
    "unknown", "witness",
]



@dataclass(frozen=True)
class Witness:
    """A history entry that proves a verdict; ``file`` is the history it indexes (relative to the
    scenario's report folder)."""

    index: int
    type: str
    time_s: float
    process: str
    summary: str
    file: str = "history.jsonl"

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "type": self.type, "time_s": self.time_s, "process": self.process,
                "summary": self.summary, "file": self.file}


OTHERS = 1000  # the rank of a checker registered without one: after the acceptance table's, by name


@dataclass(frozen=True)
class Finding:
    """What a checker found, before the engine stamps the checker's name and class on it."""

    verdict: Verdict
    count: int
    because: str
    witnesses: tuple[Witness, ...] = ()


def passed(because: str, count: int = 0, witnesses: Sequence[Witness] = ()) -> Finding:
    return Finding("pass", count, because, tuple(witnesses))


def failed(count: int, because: str, witnesses: Sequence[Witness] = ()) -> Finding:
    return Finding("fail", count, because, tuple(witnesses))


def unknown(because: str, count: int = 0, witnesses: Sequence[Witness] = ()) -> Finding:
    return Finding("unknown", count, because, tuple(witnesses))


@dataclass(frozen=True)
class CheckResult:
    """A checker's ``Finding`` with the checker's registered name and class."""

    name: str
    klass: str  # "safety" | "liveness"
    verdict: Verdict
    count: int
    because: str
    witnesses: tuple[Witness, ...] = ()
    crashed: str | None = None  # the checker's own error (a harness error), when it raised
    rank: int = OTHERS  # the checker's display order

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "class": self.klass, "verdict": self.verdict, "count": self.count,
                "because": self.because, "witnesses": [w.to_json() for w in self.witnesses], "rank": self.rank}


@dataclass(frozen=True)
class CheckInput:
    """Everything a checker may read. ``truth`` is the fakes' ground truth keyed by service;
    ``claims`` is the candidate's last report of the job (None if it never gave one)."""

    history: History
    truth: Mapping[str, Any]
    claims: Mapping[str, Any] | None
    scenario: Scenario
    job: Mapping[str, Any]
    faults: Sequence[Mapping[str, Any]] = field(default_factory=tuple)
    strict_coverage: bool = False  # a fault not reached or not exercised is unknown (``--strict-coverage``)

    @property
    def workload(self) -> Workload:
        return get_workload(str(self.job.get("workload", self.scenario.workload.kind)))

    @property
    def world_outcome(self) -> Outcome:
        """The outcome the world's final ground truth shows for the job."""
        return self.workload.outcome(self.truth, self.job)


CheckFn = Callable[[CheckInput], Finding]


@dataclass(frozen=True)
class Checker:
    name: str
    klass: str
    fn: CheckFn
    # Whether it applies to a workload; None: to every workload (a core oracle, which no workload
    # can drop). The duplicate rules apply where the workload maps the effect kind they judge.
    applies: Callable[[Workload], bool] | None = None
    rank: int = OTHERS  # display order: lower first, then by name

    def stamp(self, found: object) -> CheckResult:
        """``found`` as this checker's result; anything but a ``Finding`` is the checker's own error."""
        if not isinstance(found, Finding) or found.verdict not in VERDICTS:
            raise TypeError(f"it returned {found!r:.120}, not a Finding with a verdict of {VERDICTS}")
        return CheckResult(self.name, self.klass, found.verdict, found.count, found.because, found.witnesses,
                           rank=self.rank)


_CHECKERS: Registry[Checker] = Registry("checker")


def checker(name: str, klass: str, *, applies: Callable[[Workload], bool] | None = None,
            rank: int = OTHERS) -> Callable[[CheckFn], CheckFn]:
    if klass not in ("safety", "liveness"):
        raise ValueError(f"checker {name!r}: class {klass!r} must be 'safety' or 'liveness'")

    def register(fn: CheckFn) -> CheckFn:
        _CHECKERS.add(name, Checker(name, klass, fn, applies, rank), fn.__module__)
        return fn
    return register


def checkers() -> list[Checker]:
    """Every registered checker, in display order (by rank, then by name)."""
    return sorted(_CHECKERS.entries(), key=lambda c: (c.rank, c.name))


def checker_names() -> list[str]:
    """Every registered checker's name, in display order."""
    return [c.name for c in checkers()]


def applicable(workload: Workload) -> list[str]:
    """The registered checkers that apply to ``workload``: every core one, and those whose rule
    takes it (a workload adds what it maps; it never removes a core oracle)."""
    return [c.name for c in checkers() if c.applies is None or c.applies(workload)]


def run_checkers(inp: CheckInput, names: Sequence[str] | None = None) -> list[CheckResult]:
    results = []
    for name in names if names is not None else applicable(inp.workload):
        c = _CHECKERS.get(name)
        try:
            result = c.stamp(c.fn(inp))
        except Exception as err:  # a crashing checker proves nothing: unknown, never pass; and it is ours
            why = f"{type(err).__name__}: {err}"
            result = CheckResult(name, c.klass, "unknown", 0, f"the checker itself crashed ({why}): an error of "
                                 "the harness, not of the candidate", crashed=why, rank=c.rank)
        results.append(result)
    return results


def witness(entry: Entry, summary: str) -> Witness:
    """A witness for ``entry`` (its file is set by whoever writes the history elsewhere)."""
    return Witness(entry.index, entry.type, round(entry.time_s, 6), entry.process, summary)


def creation_witnesses(history: History, service: str, route: str, remote_ids: Sequence[int]) -> list[Witness]:
    """The completions of the write operations that created ``remote_ids`` (``id`` in the fake's answer)."""
    wanted = set(remote_ids)
    out = []
    for invoke, done in history.operations():
        d = invoke.data
        if d.get("service") != service or d.get("route") != route or d.get("method") != "POST" or done is None:
            continue
        body, withheld = done.data.get("body"), done.data.get("withheld")
        rid = body.get("id") if isinstance(body, dict) else None
        if rid not in wanted and isinstance(withheld, dict):  # a fault replaced the answer after the commit
            rid = withheld.get("id")
        if rid in wanted:
            how = _outcome_of(done)
            out.append(witness(done, f"op {invoke.op} by {invoke.process}: POST {service}{route} created id {rid}; {how}"))
    return out


def _outcome_of(done: Entry) -> str:
    """How a write's caller came out of it: answered, its answer lost, or killed in it (a crash point:
    that is what tells a user of an at-least-once framework that its step ran twice), or answered
    with an error in place of the service's own answer after the commit."""
    withheld = done.data.get("withheld")
    if isinstance(withheld, dict):
        return (f"the service committed it and answered {withheld.get('status')}, and the client got "
                f"{done.data.get('status')} instead (an error after the commit)")
    if done.type != "info":
        return f"answered {done.data.get('status')}"
    error = str(done.data.get("error") or "")
    if "crashed" in error or "killed" in error:
        return f"the candidate crashed right there ({error}) and was restarted on the same database"
    if error.startswith("response lost"):  # the gate's own words: "response lost (timeout)"
        error = error[len("response lost"):].strip(" ()")
    return f"its response was lost ({error})" if error else "its response was lost"


def final_report_witness(history: History, summary: str) -> tuple[Witness, ...]:
    """The candidate's last recorded report, as the witness of a verdict about its final claims."""
    reports = history.of_type("report")
    return (witness(reports[-1], summary),) if reports else ()


SHOWN = 8  # items a "because" line names of a list before it says how many more there are


def listed(items: Sequence[Any], sep: str = ", ", limit: int = SHOWN) -> str:
    """``items`` joined, the first ``limit`` of them and then how many more (a because line stays a
    line: 499 call ids are the first 8 and "491 more"; the witnesses and the history hold them all)."""
    shown = [str(i) for i in items[:limit]]
    more = len(items) - len(shown)
    return sep.join(shown) + (f"{sep}... {more} more" if more > 0 else "")


def pluralise(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
