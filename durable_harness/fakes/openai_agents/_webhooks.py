"""Webhooks of the sessions fake: signed exactly as ``openai.webhooks.unwrap`` verifies them.

* ``WebhookSigner(secret).sign(type, data, webhook_id=, timestamp=)`` is a pure builder: the
  envelope ``{id, object:"event", created_at, type, data}`` as the body, and the headers
  ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature: v1,<b64 HMAC-SHA256>`` over
  ``"{id}.{timestamp}.{body}"`` (the key is the base64-decoded rest of a ``whsec_`` secret, else
  the secret's UTF-8 bytes).
* ``webhooks_for(type, data)`` maps a lifecycle event of the state machine to the webhook events
  of spec section 7: ``agent.session.created|action_required|in_progress|idle|failed`` (the
  action carries only ``required_action.type``) and ``agent.environment.ready|failed|suspended|
  expired`` (``data{id}``). Turns, resets, connects and deletions send no webhook.
* ``WebhookOutbox`` signs each one with deterministic ids (``wh_000001`` in the header,
  ``evt_wh_000001`` in the envelope) and the virtual clock's Unix time, keeps them until the
  World takes them (``take()``), forges bad ones on request (``forge(kind)``), and keeps a log
  for the ground truth (which deliveries were forged).

What it deliberately does not do: deliver anything over HTTP, retry, or read the wall clock; the
World delivers what it takes, and faults decide about duplicates.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from durable_harness.fakes.openai_agents._records import Clock

__all__ = ["FORGERIES", "STALE_S", "Webhook", "WebhookOutbox", "WebhookSigner", "webhooks_for"]

FORGERIES = ("bad_signature", "replay", "stale_timestamp")
STALE_S = 600                      # a stale webhook is this much older than now (the SDK allows 300)
MAX_PENDING = 10_000               # undelivered webhooks kept; older ones expire, as a retry window would
_SESSION_WEBHOOKS = {
    "agent.session.created": "agent.session.created",
    "agent.session.requires_action": "agent.session.action_required",
    "agent.session.in_progress": "agent.session.in_progress",
    "agent.session.idle": "agent.session.idle",
    "agent.session.failed": "agent.session.failed",
}
_ENVIRONMENT_STATUSES = ("ready", "failed", "suspended", "expired")


class WebhookSigner:
    """Signs webhook deliveries with one endpoint secret (``whsec_<base64 key>`` or any string)."""

    def __init__(self, secret: str) -> None:
        if not isinstance(secret, str) or not secret:
            raise ValueError(f"secret={secret!r} must be a non-empty string, e.g. 'whsec_' + base64 of 32 bytes")
        if secret.startswith("whsec_"):
            try:
                self._key = base64.b64decode(secret[len("whsec_"):], validate=True)
            except (binascii.Error, ValueError) as error:
                raise ValueError("secret starts with 'whsec_' but the rest is not valid base64; the openai SDK "
                                 "would fail to decode it too. Use 'whsec_' + base64 of random bytes.") from error
        else:
            self._key = secret.encode()

    def signature(self, webhook_id: str, timestamp: int, body: bytes) -> str:
        signed = f"{webhook_id}.{timestamp}.{body.decode('utf-8')}".encode()
        return "v1," + base64.b64encode(hmac.new(self._key, signed, hashlib.sha256).digest()).decode()

    def sign(self, event_type: str, data: Mapping[str, Any], *, webhook_id: str, timestamp: int,
             event_id: str | None = None) -> tuple[dict[str, str], bytes]:
        """The headers and body of one delivery; the envelope id defaults to ``evt_<webhook_id>``."""
        envelope = {"id": event_id or f"evt_{webhook_id}", "object": "event", "created_at": timestamp,
                    "type": event_type, "data": dict(data)}
        body = json.dumps(envelope, separators=(",", ":")).encode()
        headers = {"webhook-id": webhook_id, "webhook-timestamp": str(timestamp),
                   "webhook-signature": self.signature(webhook_id, timestamp, body),
                   "content-type": "application/json"}
        return headers, body


def webhooks_for(event_type: str, data: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The webhook events ``(type, data)`` a state-machine event causes (often none)."""
    webhook_type = _SESSION_WEBHOOKS.get(event_type)
    if webhook_type is not None:
        session = data["session"]
        if webhook_type == "agent.session.action_required":
            actions = session.get("required_actions") or []
            if not actions:
                return []
            return [(webhook_type, {"id": session["id"], "required_action": {"type": actions[0]["type"]}})]
        environment = session.get("environment") or {"type": "none"}
        body: dict[str, Any] = {"id": session["id"], "environment_type": environment["type"]}
        if environment.get("id"):
            body["environment_id"] = environment["id"]
        if webhook_type == "agent.session.created" and environment["type"] == "self_hosted":
            body["connect"] = {"remote_url": environment.get("remote_url")}
        return [(webhook_type, body)]
    for status in _ENVIRONMENT_STATUSES:
        if event_type in (f"agent.environment.{status}", f"agent.session.environment.{status}"):
            if event_type.startswith("agent.session.") and status in ("ready", "failed"):
                return []  # a session's own environment: ready/failed webhooks are for prewarmed ones
            env_id = data.get("environment_id") or (data.get("environment") or {}).get("id") or data.get("id")
            return [(f"agent.environment.{status}", {"id": env_id})] if env_id else []
    return []


@dataclass(frozen=True)
class Webhook:
    """One delivery: what the World POSTs to the candidate's webhook endpoint."""

    webhook_id: str
    event_id: str
    type: str
    timestamp: int
    headers: Mapping[str, str]
    body: bytes
    forged: str | None = None      # None for a genuine delivery, else one of FORGERIES

    def data(self) -> dict[str, Any]:
        envelope: dict[str, Any] = json.loads(self.body)
        return dict(envelope["data"])

    def record(self) -> dict[str, Any]:
        """Plain JSON for the ground truth (no signature, no secret)."""
        return {"webhook_id": self.webhook_id, "event_id": self.event_id, "type": self.type,
                "subject": self.data().get("id"), "timestamp": self.timestamp, "forged": self.forged}


class WebhookOutbox:
    """The webhooks one sessions fake has to deliver, in order, plus forged ones on request."""

    def __init__(self, signer: WebhookSigner, clock: Clock) -> None:
        self._signer = signer
        self._clock = clock
        self._pending: deque[Webhook] = deque(maxlen=MAX_PENDING)
        self._log: list[Webhook] = []
        self._count = 0

    # -- the state machine's listener ---------------------------------------------------------
    def on_event(self, event_type: str, data: Mapping[str, Any]) -> None:
        for webhook_type, body in webhooks_for(event_type, data):
            self._add(self._build(webhook_type, body, self._clock.unix()))

    # -- the World's side ---------------------------------------------------------------------
    def take(self) -> list[Webhook]:
        """Remove and return the deliveries not yet taken, oldest first."""
        taken = list(self._pending)
        self._pending.clear()
        return taken

    def sent(self) -> list[Webhook]:
        """Every delivery ever queued, forged ones included, oldest first."""
        return list(self._log)

    def forge(self, kind: str, *, like: Webhook | None = None, event_type: str | None = None) -> Webhook:
        """Queue a forged delivery modelled on ``like`` (default: the latest genuine one).

        ``bad_signature``: a new delivery signed with a wrong key. ``stale_timestamp``: a new,
        correctly signed delivery dated ``STALE_S`` seconds ago. ``replay``: the very bytes and
        headers of ``like`` again (same webhook-id), which verify while ``like`` is recent.
        ``event_type`` overrides the type of the first two (e.g. a fake ``agent.session.idle``).
        """
        if kind not in FORGERIES:
            raise ValueError(f"forge(kind={kind!r}): unknown forgery; use one of {FORGERIES!r}")
        model = like if like is not None else next((w for w in reversed(self._log) if w.forged is None), None)
        if model is None:
            raise ValueError(f"forge(kind={kind!r}): no genuine webhook has been sent yet to model it on; "
                             "forge after the first session lifecycle event, or pass like=")
        if kind == "replay":
            forged = Webhook(model.webhook_id, model.event_id, model.type, model.timestamp, dict(model.headers),
                             model.body, forged=kind)
        else:
            now = self._clock.unix()
            timestamp = now - STALE_S if kind == "stale_timestamp" else now
            forged = self._build(event_type or model.type, model.data(), timestamp, forged=kind)
        self._add(forged)
        return forged

    def truth(self) -> list[dict[str, Any]]:
        return [w.record() for w in self._log]

    # -- helpers ------------------------------------------------------------------------------
    def _build(self, webhook_type: str, data: Mapping[str, Any], timestamp: int, *,
               forged: str | None = None) -> Webhook:
        self._count += 1
        webhook_id, event_id = f"wh_{self._count:06d}", f"evt_wh_{self._count:06d}"
        headers, body = self._signer.sign(webhook_type, data, webhook_id=webhook_id, timestamp=timestamp,
                                          event_id=event_id)
        if forged == "bad_signature":
            wrong = WebhookSigner("forged:" + hashlib.sha256(body).hexdigest())
            headers["webhook-signature"] = wrong.signature(webhook_id, timestamp, body)
        return Webhook(webhook_id, event_id, webhook_type, timestamp, headers, body, forged=forged)

    def _add(self, webhook: Webhook) -> None:
        self._pending.append(webhook)
        self._log.append(webhook)
