"""Checkers, one per file, registered by name: pure functions of one run's record."""

from harness.checkers import (  # noqa: F401  (registration)
    duplicate_drafts, duplicate_media, faults_fired, ledger_mismatches, leftover_unknowns, progress_loss, resubmitted_tasks, stuck_jobs,
    unreported_effects, wrong_checkpoint_advances, wrong_outcome,
)
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
