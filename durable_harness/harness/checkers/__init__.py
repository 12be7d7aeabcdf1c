"""Checkers, one per file, registered by name: pure functions of one run's record."""

from durable_harness.harness.checkers import (  # noqa: F401  (registration)
    abandoned_jobs, accepted_forgeries, duplicate_drafts, duplicate_effects, duplicate_media, faults_fired,
    invalid_reports, ledger_mismatches, leftover_unknowns, progress_loss, resubmitted_tasks, stuck_jobs,
    unauthorized_calls, unreported_effects, wrong_checkpoint_advances, wrong_outcome,
)
from durable_harness.harness.checkers._base import (
    CheckInput, CheckResult, Checker, Finding, Witness, applicable, checker, checker_names, checkers, failed, passed,
    run_checkers, unknown, witness,
)

__all__ = [
    "CheckInput",
    "CheckResult",
    "Checker",
    "Finding",
    "Witness",
    "applicable",
    "checker",
    "checker_names",
    "checkers",
    "failed",
    "passed",
    "run_checkers",
    "unknown",
    "witness",
]
