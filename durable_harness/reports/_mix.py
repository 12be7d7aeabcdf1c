"""Refuse to read documents about different candidates or harnesses as one report.

A report folder describes one candidate (its spec and the digest of its code) run by one harness
(its version and commit). Reusing a folder for another candidate, or after changing the harness,
leaves stale scenario folders beside new ones; a summary of both would credit one candidate with the
other's results. ``check_unmixed`` raises ``ReportMixError`` when the runs fall into more than one
such group, when they disagree with the folder's index (``report.json``), or when a run is for a
scenario the index did not plan. The message names every group found and says how to fix it.

This module does not decide which group is right, and does not delete or move anything: a human
chooses which runs to keep. It expects documents that were already validated.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["Identity", "ReportMixError", "check_unmixed", "identity", "identity_label"]

Identity = tuple[str, str | None, str, str | None]  # candidate spec, candidate digest, harness version, commit
_SHORT = 12
_MAX_NAMED = 8


class ReportMixError(ValueError):
    """Runs of different candidates or harnesses, or runs that disagree with the report's index,
    were offered as one report."""


def identity(doc: Mapping[str, Any]) -> Identity:
    """Who a run or an index is about: (candidate spec, digest, harness version, harness commit)."""
    candidate, harness = doc["candidate"], doc["harness"]
    return (str(candidate["spec"]), candidate["digest"], str(harness["version"]), harness["commit"])


def identity_label(ident: Identity) -> str:
    """``reference@1a2b3c4d5e6f (harness 0.2.0 4f5e6d7c8b9a)``; a missing digest or commit says so."""
    spec, digest, version, commit = ident
    who = f"{spec}@{digest[:_SHORT]}" if digest else f"{spec} (no digest)"
    harness = f"harness {version} {commit[:_SHORT]}" if commit else f"harness {version}, no commit"
    return f"{who} ({harness})"


def check_unmixed(runs: Sequence[Mapping[str, Any]], index: Mapping[str, Any] | None = None, *,
                  source: str = "the report") -> None:
    """Raise ``ReportMixError`` unless every run has the same candidate and harness as every other
    and as ``index`` (when given), and every run's scenario is one ``index`` planned."""
    groups = Counter(identity(run) for run in runs)
    found = [f"{identity_label(ident)} x {n} {'run' if n == 1 else 'runs'}"
             for ident, n in sorted(groups.items(), key=lambda item: (-item[1], identity_label(item[0])))]
    problems = len(groups) > 1
    if index is not None:
        indexed = identity(index)
        if any(ident != indexed for ident in groups):
            problems = True
            found.insert(0, f"report.json says {identity_label(indexed)}")
        planned = set(index["scenarios"])
        unplanned = sorted({str(run["scenario"]["id"]) for run in runs} - planned)
        if unplanned:
            problems = True
            named = ", ".join(unplanned[:_MAX_NAMED]) + (f" and {len(unplanned) - _MAX_NAMED} more"
                                                         if len(unplanned) > _MAX_NAMED else "")
            found.append(f"runs of scenarios report.json did not plan: {named}")
    if problems:
        raise ReportMixError(
            f"{source} mixes documents that cannot be read as one report: {'; '.join(found)}. A report is "
            "about one candidate under one harness: keep one report folder per candidate and harness, and "
            "give --report a fresh folder for each run (or delete the stale scenario folders)."
        )
