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
