"""Coverage: how much of a scenario's plan a run actually tested.

A fault (or a person's action) the candidate's design never met is not a failure: a control plane
that reads its post back after an error never sends the update again, and the fault waiting for
that second update is *not reached*; one that polls never opens the event stream, and a fault on
the stream is *not exercised*. The design is one the contract allows, so the run is judged on what
did happen, and coverage says what was not tested: per run, the firings that happened out of those
scheduled, and each entry that was not reached or not exercised with the reason in one line.

``--strict-coverage`` (``DH_STRICT_COVERAGE=1``) makes anything short of full coverage an unknown
verdict (exit 2), for teams that want every scenario to test all it names on their design.

What it deliberately does not do: judge the candidate (the checkers do; a design that escapes a
fault by doing nothing is caught by the liveness checkers).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["STRICT_COVERAGE_ENV", "coverage", "merge_coverage", "strict_coverage"]

STRICT_COVERAGE_ENV = "DH_STRICT_COVERAGE"


def strict_coverage(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether a fault not reached or not exercised makes the run unknown (``DH_STRICT_COVERAGE=1``)."""
    raw = (environ.get(STRICT_COVERAGE_ENV) or "").strip()
    if raw not in ("", "0", "1"):
        raise ValueError(f"{STRICT_COVERAGE_ENV}={raw!r} must be 1 (strict) or 0 (default: coverage is reported, "
                         "not a failure)")
    return raw == "1"


def coverage(plan: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The coverage of one run from its plan as run.json records it (``faults``: faults and actions)."""
    scheduled = sum(int(f.get("scheduled", 1)) for f in plan)
    fired = sum(min(int(f.get("fired", 0)), int(f.get("scheduled", 1))) for f in plan)
    return {
        "scheduled": scheduled,
        "fired": fired,
        "ratio": None if scheduled == 0 else round(fired / scheduled, 4),
        "not_reached": [_line(f) for f in plan if f.get("status") == "not_reached"],
        "not_exercised": [_line(f) for f in plan if f.get("status") == "not_exercised"],
    }


def merge_coverage(parts: Sequence[Mapping[str, Any] | None]) -> dict[str, Any]:
    """Several runs' coverage as one (a sweep's points, a whole catalogue): firings summed."""
    known = [p for p in parts if p]
    scheduled = sum(int(p.get("scheduled", 0)) for p in known)
    fired = sum(int(p.get("fired", 0)) for p in known)
    return {"scheduled": scheduled, "fired": fired, "ratio": None if scheduled == 0 else round(fired / scheduled, 4),
            "not_reached": [line for p in known for line in p.get("not_reached", [])],
            "not_exercised": [line for p in known for line in p.get("not_exercised", [])]}


def _line(entry: Mapping[str, Any]) -> str:
    head = f"faults[{entry.get('index')}] {entry.get('kind')} at {entry.get('at')}"
    reach = entry.get("reach")
    return f"{head}: {reach}" if reach else head


def describe(cov: Mapping[str, Any]) -> str:
    """One line: ``2 of 3 scheduled firings (67%); not reached: ...``."""
    if not cov or not cov.get("scheduled"):
        return "no faults scheduled"
    ratio = cov.get("ratio") or 0.0
    return f"{cov.get('fired')} of {cov.get('scheduled')} scheduled firings ({round(100 * float(ratio))}%)"
