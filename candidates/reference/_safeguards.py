"""The safeguards of the reference control plane, each one a switch.

The reference has them all on. A known-bad candidate ("mutant") is the reference with exactly one
switched off, so every checker can be shown to catch the bug that safeguard prevents.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Safeguards"]


@dataclass(frozen=True)
class Safeguards:
    # Before retrying a write whose outcome is unknown, look it up by its operation key.
    reconcile_before_retry: bool = True
    # An error that cannot prove the write did not happen (timeout, reset, 5xx) is UNKNOWN, not FAILED.
    unknown_is_not_failure: bool = True
    # An UNKNOWN operation is resolved (by reconciliation) before the job moves on.
    resolve_unknowns: bool = True
    # A job's session is found again (stored mapping, then a metadata lookup) instead of recreated.
    resume_existing_session: bool = True
    # The agent's turn completing is not the job succeeding: the outcome is judged from the ledger.
    judge_by_ledger: bool = True
    # On resume, a pending function call is answered to its call_id, never replaced by "continue".
    answer_pending_calls: bool = True
    # State is rebuilt from every page of the session's items, not from the first page.
    page_all_items: bool = True
    # A dropped event stream is followed by a read of the session, never by submitting the task again.
    read_after_drop: bool = True
    # A webhook is acted on only after its signature and timestamp check out.
    verify_webhooks: bool = True
    # A delivered result is checked against the sandbox as it is now, not trusted by environment id.
    verify_environment: bool = True
