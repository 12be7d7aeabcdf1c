"""Verdicts and exit codes: the one rule every part of durable-harness combines them by.

A verdict is ``pass``, ``unknown`` or ``fail``; combined, fail beats unknown beats pass, and
combining nothing at all is ``unknown`` (nothing was proven, so nothing passed). A run has a
safety verdict, a liveness verdict, and possibly an error that kept it from being judged. Its exit
code follows from those three alone:

====  =========================================================================================
0     every checker passed
1     a safety checker failed (something was done twice, without authority, or a lie was told)
2     a liveness checker failed, or a verdict is unknown (the harness fails closed)
3     the run could not be judged: the harness failed, was interrupted, or could not run the
      candidate at all (it would not start, or lacks a capability the scenario needs)
====  =========================================================================================

Over several runs the most serious code wins, in the order 1, 3, 2, 0: a proven safety violation
is never hidden behind another run's error.

A run's six verdict fields (``verdict``, ``safety``, ``liveness``, ``exit_code``, ``complete``,
``error``) are one ``Judgement``: its class verdicts and its error, the rest derived. The run, the
sweep fold, the determinism check and the documents of runs that stopped short all write them
through it; the reports and the command line read them. Nothing else decides a verdict or an exit
code.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["EXIT_MEANING", "SEVERITY", "VERDICTS", "Judgement", "Verdict", "combine", "exit_code", "worst_exit"]

Verdict = Literal["pass", "unknown", "fail"]
VERDICTS: tuple[Verdict, ...] = ("pass", "unknown", "fail")  # in order of badness
SEVERITY = (1, 3, 2, 0)  # the order in which exit codes win over each other
EXIT_MEANING = {
    0: "every scenario passed",
    1: "a safety violation",
    2: "a liveness failure or an unknown verdict",
    3: "the run could not be judged (a harness error, an interruption, or a candidate that could not be run)",
}


def combine(verdicts: Iterable[str]) -> Verdict:
    """fail beats unknown beats pass; no verdict at all is ``unknown``."""
    worst: Verdict | None = None
    for v in verdicts:
        if v not in VERDICTS:
            raise ValueError(f"verdict {v!r} is not one of {VERDICTS}")
        if worst is None or VERDICTS.index(v) > VERDICTS.index(worst):
            worst = v
    return "unknown" if worst is None else worst


def exit_code(safety: str, liveness: str, error: bool) -> int:
    """The exit code of one run from its two class verdicts and whether an error kept it from
    being judged (an error wins: an unjudged run proves nothing either way)."""
    if error:
        return 3
    if safety == "fail":
        return 1
    return 0 if combine([safety, liveness]) == "pass" else 2


def worst_exit(codes: Iterable[int]) -> int:
    """The most serious of several runs' exit codes (1, 3, 2, 0); no runs at all is 3."""
    seen = set(codes)
    for code in seen:
        if code not in SEVERITY:
            raise ValueError(f"exit code {code!r} is not one of {SEVERITY}")
    return next((c for c in SEVERITY if c in seen), 3)


@dataclass(frozen=True)
class Judgement:
    """What one run (or a sweep's fold of runs) concludes: two class verdicts and the error that kept
    it from being judged, if any. Everything else is derived, so the six fields of a run document
    cannot disagree with each other."""

    safety: Verdict
    liveness: Verdict
    error: Mapping[str, Any] | None = None

    @classmethod
    def of(cls, results: Iterable[tuple[str, str]], error: Mapping[str, Any] | None = None) -> Judgement:
        """From checkers' (class, verdict) pairs. A class no checker judged is unknown; an error turns
        a class that passed into unknown (an unjudged run proves nothing), never a failure into less."""
        pairs = list(results)
        safety = combine(v for k, v in pairs if k == "safety")
        liveness = combine(v for k, v in pairs if k == "liveness")
        if error is not None:
            safety = "unknown" if safety == "pass" else safety
            liveness = "unknown" if liveness == "pass" else liveness
        return cls(safety, liveness, error)

    @classmethod
    def unjudged(cls, error: Mapping[str, Any]) -> Judgement:
        """A run that stopped before any checker ran."""
        return cls("unknown", "unknown", error)

    @classmethod
    def fold(cls, parts: Iterable[Mapping[str, Any]]) -> Judgement:
        """Several runs' documents as one (a sweep's points): the worst of each class; the first error,
        unless a run's proven safety violation outranks it (exit 1 beats exit 3, ``worst_exit``)."""
        docs = list(parts)
        safety, liveness = combine(d["safety"] for d in docs), combine(d["liveness"] for d in docs)
        error = next((d["error"] for d in docs if d.get("error")), None)
        return cls(safety, liveness, error if worst_exit(int(d["exit_code"]) for d in docs) == 3 else None)

    def with_liveness(self, verdict: Verdict) -> Judgement:
        """The same judgement with one more liveness verdict combined in (the determinism check)."""
        return Judgement(self.safety, combine([self.liveness, verdict]), self.error)

    @property
    def verdict(self) -> Verdict:
        return combine([self.safety, self.liveness, *(["unknown"] if self.error is not None else [])])

    @property
    def exit_code(self) -> int:
        return exit_code(self.safety, self.liveness, self.error is not None)

    @property
    def complete(self) -> bool:
        return self.error is None

    def fields(self) -> dict[str, Any]:
        """The six fields of a run document, in its order."""
        return {"verdict": self.verdict, "safety": self.safety, "liveness": self.liveness,
                "exit_code": self.exit_code, "complete": self.complete,
                "error": None if self.error is None else dict(self.error)}
