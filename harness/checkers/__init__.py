"""Checkers, one per file, registered by name: pure functions of one run's record."""

from harness.checkers import duplicate_drafts, duplicate_media, faults_fired, leftover_unknowns, wrong_outcome  # noqa: F401
from harness.checkers._base import (
    CheckInput, CheckResult, Checker, Witness, checker, checker_names, combine, run_checkers, witness,
)

__all__ = [
    "CheckInput",
    "CheckResult",
    "Checker",
    "Witness",
    "checker",
    "checker_names",
    "combine",
    "run_checkers",
    "witness",
]
