"""Webhooks from the sessions API: verified against the run's clock, deduplicated by id.

The signature is the Standard Webhooks one the `openai` SDK checks (`v1,<base64 HMAC-SHA256>` of
`<webhook-id>.<webhook-timestamp>.<body>` under the `whsec_` secret); the timestamp is compared
with `HARNESS_TIME_ORIGIN` + the run's time (not the wall clock, which the compressed run
outpaces). A webhook only wakes the worker: what it claims is read again from the API.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Mapping

TOLERANCE_S = 300


def verify(body: bytes, headers: Mapping[str, str], secret: str, now_unix: float) -> str | None:
    """None when the webhook is genuine and fresh, else why it is refused."""
    webhook_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signature = headers.get("webhook-signature")
    if not (webhook_id and timestamp and signature and secret):
        return "missing webhook headers"
    try:
        stamp = int(timestamp)
    except ValueError:
        return "bad timestamp"
    if now_unix - stamp > TOLERANCE_S:
        return "timestamp too old"
    if stamp > now_unix + TOLERANCE_S:
        return "timestamp too new"
    key = base64.b64decode(secret[6:]) if secret.startswith("whsec_") else secret.encode()
    signed = f"{webhook_id}.{timestamp}.{body.decode('utf-8', 'replace')}".encode()
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for part in signature.split():
        candidate = part[3:] if part.startswith("v1,") else part
        if hmac.compare_digest(expected, candidate):
            return None
    return "bad signature"


def describe(body: bytes) -> tuple[str, str]:
    """(event type, session id) of a verified webhook body."""
    try:
        event = json.loads(body)
    except ValueError:
        return "", ""
    if not isinstance(event, dict):
        return "", ""
    data = event.get("data")
    session_id = data.get("id", "") if isinstance(data, dict) else ""
    return str(event.get("type", "")), str(session_id)
