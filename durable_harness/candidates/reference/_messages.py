"""The input events the reference sends to a session besides tool results, and the recovery
summary it builds from its ledger.

Every send is one ``events.create``; with an idempotency key a retry after a lost response is
harmless. A failed send returns False: the caller keeps its state and tries again next step.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import openai

from durable_harness.candidates.reference._store import OpRow

__all__ = ["CANCEL", "REFUSED", "raise_refusal", "recovery_summary", "once", "send", "user_message"]

# The sessions API refusing the key (401: revoked) or the request for good (403): never retried, never
# worked around. The step loop tells them apart: a revoked key waits for a human, a 403 ends the job.
REFUSED = (openai.AuthenticationError, openai.PermissionDeniedError)


def raise_refusal(err: BaseException) -> None:
    """Let a refusal of the key through a handler of transient errors."""
    if isinstance(err, REFUSED):
        raise err

CANCEL: dict[str, Any] = {"type": "agent.session.input.cancel"}
_SUMMARY_ROLES = {"wp_create_draft": "article", "wp_update_post": "article:update", "wp_set_seo": "article:seo"}


def user_message(text: str) -> dict[str, Any]:
    return {"type": "agent.session.input.message",
            "input": [{"role": "user", "content": [{"type": "input_text", "text": text}]}]}


def once(api: openai.OpenAI, sg: Any = None) -> openai.OpenAI:
    """The client for a write the sessions API cannot dedupe (no Idempotency-Key): the SDK must not
    retry it on its own (it would resend it without a key). Our own code decides, after a lookup."""
    return api if sg is not None and not sg.no_sdk_retry_of_unkeyed_writes else api.with_options(max_retries=0)


def send(api: openai.OpenAI, session_id: str, events: Sequence[dict[str, Any]], key: str | None = None) -> bool:
    batch: Any = list(events)
    try:
        if key is None:
            once(api).beta.agents.sessions.events.create(session_id, events=batch)
        else:
            api.beta.agents.sessions.events.create(session_id, events=batch, idempotency_key=key)
    except (openai.APIConnectionError, openai.APIStatusError) as err:
        raise_refusal(err)
        return False
    return True


def recovery_summary(ops: Sequence[OpRow]) -> str:
    """``RECOVERY SUMMARY`` and the done roles with their receipts (docs/contract.md). The agent
    asks for its images in order, so the n-th confirmed upload is ``image:n``."""
    done: dict[str, dict[str, int]] = {}
    uploads = [o for o in ops if o.kind == "wp_upload_media" and o.state == "CONFIRMED"]
    for n, op in enumerate(uploads, 1):
        done[f"image:{n}"] = {"media_id": int(op.remote_id or 0)}
    for op in ops:
        if op.state == "CONFIRMED" and op.kind in _SUMMARY_ROLES:
            done[_SUMMARY_ROLES[op.kind]] = {"post_id": int(op.remote_id or 0)}
    return "RECOVERY SUMMARY\n" + json.dumps({"done": done}, sort_keys=True)
