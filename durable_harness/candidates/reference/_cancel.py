"""Cancellation, the reference's way, in the order the contract gives.

``cancel(job_id)`` is the acknowledgement: every version of the job still running or awaiting a
human is marked ``cancelled`` in the database before it returns (a restart keeps it so, a late
webhook or a second submit does not reopen it), and from then on the job sends no write (the
WordPress guard refuses them) and no input to its session but the cancel of its turn. Then, on the
next steps, ``settle`` settles what was in flight: a create whose outcome is unknown is looked up by
its operation key (a read) and recorded as it is; the session's turn, if one is running, is
cancelled; the draft made before the cancellation is kept, and reported.

What it deliberately does not do: undo anything that was done, or send anything but reads and the
turn's cancel once the user has cancelled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import openai

from durable_harness.candidates.reference._messages import CANCEL, raise_refusal, send
from durable_harness.candidates.reference._store import JobRow, Store
from durable_harness.candidates.reference._wordpress import Definite, Indefinite, WordPress

__all__ = ["STOPPABLE", "cancel_job", "cancelled_by_user", "needs_settling", "settle", "stop"]

STOPPABLE = ("running", "needs_human")
_FINDABLE = {"wp_create_draft": "posts", "wp_upload_media": "media"}
_LIVE_TURN = ("in_progress", "requires_action")


def cancel_job(store: Store, job_id: str) -> Mapping[str, Any]:
    """Mark every version of ``job_id`` that is still going as cancelled; returns the acknowledgement."""
    cancelled = [job.task_version for job in store.jobs(job_id) if stop(store, job, "cancelled by the user", user=True)]
    return {"job_id": job_id, "cancelled": True, "task_versions": cancelled}


def cancelled_by_user(store: Store, job_id: str) -> bool:
    """Whether the user cancelled ``job_id`` (any version): a later version does not reopen it."""
    return any(job.checkpoint.get("user_cancelled") for job in store.jobs(job_id))


def stop(store: Store, job: JobRow, note: str, *, user: bool = False) -> bool:
    """Cancel one version (the user's cancel, or a newer version superseding it); False if it had ended."""
    if job.outcome not in STOPPABLE:
        return False
    checkpoint = {**job.checkpoint, "settled": False, **({"user_cancelled": True} if user else {})}
    store.update_job(job, outcome="cancelled", note=note, checkpoint=checkpoint)
    return True


def needs_settling(job: JobRow) -> bool:
    return job.outcome == "cancelled" and job.checkpoint.get("settled") is False


def settle(store: Store, api: openai.OpenAI, wp: WordPress, job: JobRow) -> bool:
    """Settle a cancelled job: in-flight creates by lookup, then the session's turn. Returns whether
    it is settled now (False: try again next step; nothing was lost)."""
    for op in store.ops(job.job_id, job.task_version):
        kind = _FINDABLE.get(op.kind)
        if op.state not in ("SENT", "UNKNOWN") or kind is None:
            continue
        try:
            found = wp.find(kind, op.operation_key)
        except (Definite, Indefinite):
            return False
        if found:
            store.set_op(op.operation_key, "CONFIRMED", remote_id=str(found[0]["id"]))
        else:
            store.set_op(op.operation_key, "FAILED")  # looked up: it was never written
    if job.session_id is not None:
        try:
            status = api.beta.agents.sessions.retrieve(job.session_id).status
        except (openai.APIConnectionError, openai.APIStatusError) as err:
            raise_refusal(err)  # a refused key stops the settling too: it waits for a human like the rest
            return False
        if status in _LIVE_TURN and not send(api, job.session_id, [CANCEL], key=f"{job.session_id}/cancel"):
            return False
    fresh = next(j for j in store.jobs(job.job_id) if j.task_version == job.task_version)
    store.update_job(fresh, checkpoint={**fresh.checkpoint, "settled": True})
    return True
