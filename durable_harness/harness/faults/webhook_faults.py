"""Faults on webhooks the sessions API sends to the candidate (fired by the World's delivery).

Their trigger names the webhook: ``at: {service: webhooks, method: POST, route: /agent.session.idle}``
(``route`` is ``/`` + the webhook event type; ``*`` matches any).

* ``duplicate_webhook``: after delivering the n-th matching webhook, deliver it again, byte for
  byte (at-least-once delivery; the same ``webhook-id``).
* ``forge_webhook``: before the n-th matching webhook, deliver a forgery: ``forgery`` is
  ``bad_signature`` (signed with a wrong key), ``stale_timestamp`` (correctly signed, 600 s old)
  or ``replay`` (an earlier delivery again); ``event_type`` says what the forgery claims
  (default: the type of the webhook it precedes).
"""

from __future__ import annotations

from dataclasses import dataclass

from durable_harness.harness.faults._base import Action, FaultContext
from durable_harness.harness.faults._registry import fault_kind
from durable_harness.harness.faults._request_fault import RequestFault

__all__ = ["DuplicateWebhook", "ForgeWebhook", "WebhookAction"]


@dataclass(frozen=True)
class WebhookAction(Action):
    """``duplicate`` the webhook, or ``forge`` one (``forgery``, claiming ``event_type``) before it."""

    kind: str
    forgery: str = ""
    event_type: str | None = None


@fault_kind("duplicate_webhook")
class DuplicateWebhook(RequestFault):
    point = "after"
    services = ("webhooks",)

    def action(self, ctx: FaultContext) -> Action:
        return WebhookAction("duplicate")


@fault_kind("forge_webhook")
class ForgeWebhook(RequestFault):
    point = "before"
    services = ("webhooks",)
    params_schema = {
        "forgery": {"enum": ["bad_signature", "stale_timestamp", "replay"], "default": "bad_signature"},
        "event_type": {"enum": ["agent.session.created", "agent.session.action_required", "agent.session.in_progress",
                                "agent.session.idle", "agent.session.failed"]},
    }

    def action(self, ctx: FaultContext) -> Action:
        event_type = self.params.get("event_type")
        return WebhookAction("forge", str(self.param("forgery")),
                             str(event_type) if event_type else None)
