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
    # A write is reconciled by its operation key, never by its title or file name (others share them).
    reconcile_by_operation_key: bool = True
    # ... nor by the slug it expects its title to get: the site decides slugs (a number is a date
    # archive's, a taken slug gets "-2", letters of other scripts are kept, not dropped).
    slug_is_not_identity: bool = True
    # A reconciling lookup reads every page of the listing and checks each item's key.
    page_all_lookups: bool = True
    # A 5xx after a write proves nothing (a proxy may answer 502 after the commit): UNKNOWN, not FAILED.
    server_error_is_unknown: bool = True
    # A job awaiting approval publishes only under an approval in force now (never without one).
    require_approval: bool = True
    # The approval is looked up again before every attempt to publish (it may be revoked or expire).
    recheck_approval: bool = True
    # Approvals and work are bound to the task version: a new version supersedes the old one.
    approval_bound_to_version: bool = True
    # An approval counts only for the content it approved (its digest matches the post as it is now).
    approval_bound_to_digest: bool = True
    # The user's cancellation stops the job.
    honour_cancel: bool = True
    # A cancellation is recorded durably before it is acknowledged (a restart keeps it).
    persist_cancel: bool = True
    # A cancelled job stays cancelled when a new task version of it is submitted.
    cancel_survives_new_version: bool = True
    # After a cancellation no write is sent, a retry included (an unknown outcome is settled by lookup).
    no_writes_after_cancel: bool = True
    # A refused credential (401) stops the job: it is never used again, and never worked around.
    stop_on_refused_credentials: bool = True
    # Only the job's allowed tools (as they are now) are declared to the agent and executed.
    enforce_allowed_tools: bool = True
    # A session whose create was sent is waited for in the (lagging) listing, never created twice.
    wait_for_listing: bool = True
    # A write the sessions API cannot dedupe (a session create, a message sent without a key) is
    # never retried by the SDK on its own: its client has max_retries=0 for it, whatever the default.
    no_sdk_retry_of_unkeyed_writes: bool = True
    # A webhook that fails verification is answered 4xx (refused), never 2xx.
    refuse_forged_webhooks: bool = True
    # A side effect is keyed on the business action, never on the call that asked for it (the agent,
    # or the platform retrying its step, may ask again under a new call id).
    key_by_business_action: bool = True
    # The job's outcome is judged from the ledger and the world, never from the agent's own words.
    ignore_agent_text: bool = True
    # A delivered artifact is checked by the digest of its bytes, never by its size alone.
    verify_artifact_digest: bool = True
    # A job is worked only by the worker that holds its lease (several workers may share the database).
    leases: bool = True
    # The lease is renewed at every step and checked before every write (it runs out otherwise).
    renew_leases: bool = True
    # A write is sent under the writer lock, taken with the lease check: no takeover while it is on its way.
    hold_write_lock: bool = True
    # Every write carries the lease's fencing token (X-Fencing-Token), for a site that checks it.
    fencing_token: bool = True
    # A lookup by operation key keeps only what carries exactly this key: the site's collation also
    # answers with keys that differ in case, accents or trailing spaces (another job's).
    exact_key_match: bool = True
    # A (re)started instance takes over only leases that ran out or were its own worker's (its
    # predecessor is dead), never a lease another live worker holds in force.
    spare_live_leases_on_start: bool = True
