"""Receiving the sessions API's webhooks: verify, dedupe, acknowledge.

A webhook is verified before anything else: its signature with the SDK's
``webhooks.verify_signature`` (Standard Webhooks, ``whsec_`` secret), and its timestamp against
the *run's* time (``HARNESS_TIME_ORIGIN`` + the run time the harness sends), within five
minutes, since the stock check compares with the wall clock and time here is compressed. A
forgery or a stale one is refused with 400. A verified one is recorded by its ``webhook-id``
(delivery is at-least-once, so a duplicate is answered 200 again and ignored).

This control plane polls the session, so a webhook is news it would read anyway: it is never
acted upon, and in particular never reopens a cancelled job.
"""

from __future__ import annotations

from typing import Any

import openai

from runtime import Runtime

TOLERANCE_S = 300.0


def receive(r: Runtime, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, Any]]:
    lowered = {k.lower(): v for k, v in headers.items()}
    webhook_id = lowered.get("webhook-id", "")
    try:
        timestamp = float(lowered.get("webhook-timestamp", ""))
    except ValueError:
        return 400, {"error": "missing or malformed webhook-timestamp"}
    if not webhook_id or not r.settings.openai_webhook_secret:
        return 400, {"error": "missing webhook-id or no secret to verify with"}
    try:
        r.sessions.client.webhooks.verify_signature(
            body, lowered, secret=r.settings.openai_webhook_secret, tolerance=10 ** 9)
    except (openai.InvalidWebhookSignatureError, ValueError) as exc:
        return 400, {"error": f"signature: {exc}"}
    age = r.clock.unix() - timestamp
    if abs(age) > TOLERANCE_S:
        return 400, {"error": f"stale webhook: {age:.0f} s from the run's time"}
    first = r.store.first_delivery(webhook_id)
    return 200, {"ok": True, "duplicate": not first}
