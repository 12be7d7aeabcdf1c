"""The checker interface: pure functions of one run's history, ground truth and claims.

A checker returns pass / fail / unknown with a count, a one-line "because" and witnesses (the
history entries that prove it). Checkers are registered by name, one module each; a checker that
raises yields ``unknown`` (never pass). Verdicts combine as fail > unknown > pass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness._history import Entry, History
from harness.scenario import Scenario

__all__ = [
    "CheckInput", "CheckResult", "Checker", "Witness", "checker", "checker_names", "combine", "run_checkers",
    "witness",
]

VERDICTS = ("pass", "unknown", "fail")


@dataclass(frozen=True)
class Witness:
    index: int
    type: str
    time_s: float
    process: str
    summary: str

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "type": self.type, "time_s": self.time_s, "process": self.process, "summary": self.summary}


@dataclass(frozen=True)
class CheckResult:
    name: str
    klass: str  # "safety" | "liveness"
    verdict: str
    count: int
    because: str
    witnesses: tuple[Witness, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "class": self.klass, "verdict": self.verdict, "count": self.count,
                "because": self.because, "witnesses": [w.to_json() for w in self.witnesses]}


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


@dataclass(frozen=True)
class Checker:
    name: str
    klass: str
    fn: Callable[[CheckInput], CheckResult]


_CHECKERS: dict[str, Checker] = {}


def checker(name: str, klass: str) -> Callable[[Callable[[CheckInput], CheckResult]], Callable[[CheckInput], CheckResult]]:
    if klass not in ("safety", "liveness"):
        raise ValueError(f"checker {name!r}: class {klass!r} must be 'safety' or 'liveness'")

    def register(fn: Callable[[CheckInput], CheckResult]) -> Callable[[CheckInput], CheckResult]:
        if name in _CHECKERS:
            raise RuntimeError(f"checker {name!r} is registered twice ({_CHECKERS[name].fn.__module__} and {fn.__module__})")
        _CHECKERS[name] = Checker(name, klass, fn)
        return fn
    return register


def checker_names() -> list[str]:
    return sorted(_CHECKERS)


def run_checkers(inp: CheckInput, names: Sequence[str] | None = None) -> list[CheckResult]:
    results = []
    for name in names or checker_names():
        c = _CHECKERS[name]
        try:
            result = c.fn(inp)
        except Exception as err:  # a crashing checker proves nothing: unknown, never pass
            result = CheckResult(name, c.klass, "unknown", 0, f"checker crashed: {type(err).__name__}: {err}")
        results.append(result)
    return results


def combine(verdicts: Sequence[str]) -> str:
    """fail beats unknown beats pass; no verdict at all is unknown (nothing was proven)."""
    if not verdicts:
        return "unknown"
    return max(verdicts, key=VERDICTS.index)


def witness(entry: Entry, summary: str) -> Witness:
    return Witness(entry.index, entry.type, round(entry.time_s, 6), entry.process, summary)


def creation_witnesses(history: History, service: str, route: str, remote_ids: Sequence[int]) -> list[Witness]:
    """The completions of the write operations that created ``remote_ids`` (``id`` in the fake's answer)."""
    wanted = set(remote_ids)
    out = []
    for invoke, done in history.operations():
        d = invoke.data
        if d.get("service") != service or d.get("route") != route or d.get("method") != "POST" or done is None:
            continue
        body = done.data.get("body")
        rid = body.get("id") if isinstance(body, dict) else None
        if rid in wanted:
            how = "its response was lost" if done.type == "info" else f"answered {done.data.get('status')}"
            out.append(witness(done, f"op {invoke.op} by {invoke.process}: POST {service}{route} created id {rid}; {how}"))
    return out


def pluralise(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
