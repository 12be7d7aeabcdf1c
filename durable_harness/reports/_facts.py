"""What validated documents say, in the terms both renderers use.

A run's *status* is its verdict, or ``error`` when an error kept it from being judged; an error's
*kind* has one fixed wording; a fault is ``fired``, ``not_exercised`` (coverage: the candidate never
used the channel it targets), ``not_reached`` (coverage: a sweep's crash point that its real-time run
ended before) or ``unfired`` (the run is unknown); scenarios the index planned but
that have no run are *not run*. The overall verdict and exit code of a report come from
``durable_harness.harness.verdict`` alone: the runs' own, plus exit code 3 (unknown) when planned scenarios did not
run, because an unfinished report cannot be judged whole.

This module does no formatting and no validation; it reads documents that were validated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from durable_harness.harness.verdict import combine, worst_exit

__all__ = [
    "ERROR_WORDS", "UNTESTED", "candidates", "counter_classes", "counter_names", "coverage_of", "coverage_text",
    "faults_with", "harnesses", "not_run", "overall", "seeds", "short", "status", "total_coverage", "untested",
    "untested_why",
]

Doc = Mapping[str, Any]

ERROR_WORDS = {
    "harness": "an error of the harness, not of the candidate",
    "candidate": "the candidate could not be run at all",
    "setup": "the scenario cannot run against this candidate",
    "not_applicable": "the scenario needs the fake of a service that is real in this run",
    "interrupted": "the run was interrupted (SIGINT or SIGTERM) before it could be judged",
}
_SHORT = 12
_UNRANKED = 1000  # a counter whose checker gave no rank (an older document, the determinism check): by name, after


def status(run: Doc) -> str:
    """``error`` when an error kept the run from being judged, else its verdict."""
    return "error" if run["error"] is not None else str(run["verdict"])


def faults_with(run: Doc, fault_status: str) -> list[Doc]:
    """The run's faults whose status is ``fault_status``, in their order in the scenario."""
    return [fault for fault in run["faults"] if fault["status"] == fault_status]


# Fault statuses that are coverage, not a verdict: the fault could not act in this run. The words name them.
UNTESTED = {"not_exercised": "not exercised", "not_reached": "not reached"}


def untested(run: Doc) -> list[Doc]:
    """The run's faults that were not tested (``UNTESTED``), in their order in the scenario."""
    return [fault for fault in run["faults"] if fault["status"] in UNTESTED]


def untested_why(fault: Doc) -> str:
    """Why an untested fault could not act, in one clause (the engine's own line when it gave one)."""
    if fault.get("reach"):
        return str(fault["reach"])
    if fault["status"] == "not_reached":
        return (f"this run, in real time, ended its chaos after {fault['seen']} requests, before {fault['at']}: "
                "a crash point past the end of its own run (a clean run, judged as one)")
    return f"the candidate never used {fault['channel']}"


def coverage_of(run: Doc) -> tuple[int, int]:
    """(firings that happened, firings scheduled) of one run: its ``coverage`` block, or its faults."""
    cov = run.get("coverage")
    if cov:
        return int(cov["fired"]), int(cov["scheduled"])
    faults = run["faults"]
    return (sum(min(int(f["fired"]), int(f["scheduled"])) for f in faults), sum(int(f["scheduled"]) for f in faults))


def coverage_text(fired: int, scheduled: int) -> str:
    """``3/3`` or ``1/3 (33%)``; ``–`` when nothing was scheduled."""
    if scheduled == 0:
        return "–"
    return f"{fired}/{scheduled}" if fired == scheduled else f"{fired}/{scheduled} ({round(100 * fired / scheduled)}%)"


def total_coverage(runs: Sequence[Doc]) -> tuple[int, int]:
    pairs = [coverage_of(run) for run in runs]
    return sum(f for f, _ in pairs), sum(s for _, s in pairs)


def not_run(runs: Sequence[Doc], index: Doc | None) -> list[str]:
    """Scenarios the index planned that have no run, in the order they were planned."""
    if index is None:
        return []
    ran = {str(run["scenario"]["id"]) for run in runs}
    return [str(sid) for sid in index["scenarios"] if sid not in ran]


def overall(runs: Sequence[Doc], index: Doc | None) -> tuple[str, int]:
    """(verdict, exit code) of the whole report. Nothing run at all is unknown, exit code 3."""
    missing = bool(not_run(runs, index)) or bool(index is not None and index["partial"])
    verdict = combine([*(str(run["verdict"]) for run in runs), *(["unknown"] if missing else [])])
    code = worst_exit([*(int(run["exit_code"]) for run in runs), *([3] if missing else [])])
    return verdict, code


def candidates(runs: Sequence[Doc], index: Doc | None) -> list[tuple[str, str | None]]:
    """Every (spec, digest) the report is about, the index's first."""
    found = [(str(d["candidate"]["spec"]), d["candidate"]["digest"]) for d in ([index] if index else [])]
    return _unique(found + sorted({(str(r["candidate"]["spec"]), r["candidate"]["digest"]) for r in runs},
                                  key=_none_first))


def harnesses(runs: Sequence[Doc], index: Doc | None) -> list[tuple[str, str | None]]:
    """Every (version, commit) of the harness that made the report, the index's first."""
    found = [(str(d["harness"]["version"]), d["harness"]["commit"]) for d in ([index] if index else [])]
    return _unique(found + sorted({(str(r["harness"]["version"]), r["harness"]["commit"]) for r in runs},
                                  key=_none_first))


def counter_names(runs: Sequence[Doc]) -> list[str]:
    """Every counter any run has, in the display order the harness's registry gave its checker (the
    ``rank`` of each checker in the runs), then by name. The reports name no checker of their own."""
    present = {str(name) for r in runs for name in r["counters"]}
    ranks = {str(c["name"]): int(c["rank"]) for r in runs for c in r["checkers"] if "rank" in c}
    return sorted(present, key=lambda name: (ranks.get(name, _UNRANKED), name))


def counter_classes(runs: Sequence[Doc]) -> dict[str, str]:
    """The class (``safety`` or ``liveness``) of every counter, from the checkers that produced it;
    ``other`` for a counter no checker of these runs names."""
    classes = {str(c["name"]): str(c["class"]) for r in runs for c in r["checkers"]}
    return {name: classes.get(name, "other") for name in counter_names(runs)}


def seeds(runs: Sequence[Doc]) -> list[int]:
    return sorted({int(run["seed"]) for run in runs})


def short(hex_id: object) -> str | None:
    """The first characters of a digest or commit, enough to tell two apart by eye."""
    return None if hex_id is None else str(hex_id)[:_SHORT]


def _none_first(pair: tuple[str, str | None]) -> tuple[str, str]:
    return (pair[0], pair[1] or "")


def _unique(pairs: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
    return list(dict.fromkeys(pairs))
