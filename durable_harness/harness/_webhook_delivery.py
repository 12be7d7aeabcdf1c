"""Delivering the sessions API's webhooks to the candidate, with webhook faults.

After every step the World takes the fake's pending webhooks and hands each to the candidate's
``receive_webhook(headers, body) -> status`` (the in-process form of ``POST /webhooks/openai``;
a candidate without it does not take webhooks). Each delivery is an operation in the history of
process ``openai-webhooks``; forgeries are marked so checkers and reviewers can tell them apart.

It deliberately does not retry failed deliveries (a later milestone) or judge anything.
"""

from __future__ import annotations

from typing import Any

from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._history import History
from durable_harness.harness._nemesis import Nemesis
from durable_harness.harness.candidate import Driver
from durable_harness.harness.faults import FaultContext
from durable_harness.harness.faults.webhook_faults import WebhookAction
from durable_harness.wire import Request

__all__ = ["WebhookDelivery"]

PROCESS = "openai-webhooks"
_MAX_ROUNDS = 20


class WebhookDelivery:
    def __init__(self, fake: Any, clock: VirtualClock, history: History, nemesis: Nemesis) -> None:
        self._fake = fake
        self._clock = clock
        self._history = history
        self._nemesis = nemesis
        self.delivered = 0

    def pump(self, driver: Driver) -> int:
        """Deliver everything pending (bounded); returns how many deliveries were made."""
        if not driver.accepts("webhooks"):
            self._fake.webhook_outbox()  # nobody listens: the deliveries are dropped, as a 404 endpoint would
            return 0
        count = 0
        for _ in range(_MAX_ROUNDS):
            batch = self._fake.webhook_outbox()
            if not batch:
                break
            for webhook in batch:
                count += self._deliver(driver, webhook)
        return count

    def _deliver(self, driver: Driver, webhook: Any) -> int:
        armed = [] if webhook.forged else [f for f in self._nemesis.armed() if f.trigger.service == "webhooks"]
        request = Request.build("POST", "/" + str(webhook.type))
        op = self._record_invoke(webhook)
        ctx = FaultContext(service="webhooks", route="/" + str(webhook.type), request=request, process=PROCESS, op=op,
                           condition=self._nemesis.condition)
        for fault in armed:
            fault.observe(ctx)
        for fault in armed:
            action = fault.before(ctx)
            if isinstance(action, WebhookAction):
                forged = self._fake.forge_webhook(action.forgery, like=webhook, event_type=action.event_type)
                self._nemesis.record(fault, op, PROCESS, {"forgery": action.forgery, "webhook_id": forged.webhook_id,
                                                          "claims": forged.type})
        self._send(driver, op, webhook)
        count = 1
        for fault in armed:
            action = fault.after(ctx)
            if isinstance(action, WebhookAction):
                self._nemesis.record(fault, op, PROCESS, {"duplicated": webhook.webhook_id})
                self._send(driver, self._record_invoke(webhook, duplicate=True), webhook)
                count += 1
        return count

    def _record_invoke(self, webhook: Any, duplicate: bool = False) -> int:
        data = {"service": "candidate", "method": "POST", "route": "/webhooks/openai", "webhook_id": webhook.webhook_id,
                "type": webhook.type, "forged": webhook.forged}
        if duplicate:
            data["duplicate"] = True
        return self._history.invoke(self._clock.now(), PROCESS, data)

    def _send(self, driver: Driver, op: int, webhook: Any) -> None:
        status = driver.deliver_webhook(dict(webhook.headers), bytes(webhook.body))
        self.delivered += 1
        if status is None:  # the candidate died receiving it
            if self._history.is_open(op):
                self._history.complete(self._clock.now(), op, "info", {"error": "the candidate crashed receiving the webhook"})
            return
        self._history.complete(self._clock.now(), op, "ok" if status < 400 else "fail", {"status": status})
