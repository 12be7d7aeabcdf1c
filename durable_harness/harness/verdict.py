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

The sweep fold, the determinism check, the reports and the command line all use this module;
nothing else decides a verdict or an exit code.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

__all__ = ["EXIT_MEANING", "SEVERITY", "VERDICTS", "Verdict", "combine", "exit_code", "worst_exit"]

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
