"""The control API (submit, cancel, report, step, receive_webhook, close) over the engine.

Two ways to step, both allowed by the contract:

- *incremental*: each ``step()`` looks at every job that is due, does what is available now and
  returns; between two looks at a job it waits on the virtual clock (at most one poll interval);
- *blocking*: one ``step()`` carries each job until it settles, sleeping on the virtual clock
  between polls, bounded in polls and in virtual time.

Webhooks are verified, deduplicated by ``webhook-id`` and taken only as a hint to poll the job
sooner: what a webhook claims is never acted on, the session is read instead.

``submit`` and ``cancel`` only write durable records and return; they may be called while a
``step()`` of this same instance is blocked inside a request, so they touch none of the stepping
state. A job that waits for a person (a reviewer) is looked at once per step and never blocks one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import openai

from tests.candidates.strangers.polling.engine import POLL_MAX_S, Engine
from tests.candidates.strangers.polling.leases import LEASE_TTL_S
from tests.candidates.strangers.polling.report import build_report, unknown_job_report

__all__ = ["PollingControlPlane"]

BLOCKING_MAX_ROUNDS = 2000
BLOCKING_MAX_VIRTUAL_S = 1800.0


def _header(headers: Any, name: str) -> str | None:
    items = headers.items() if isinstance(headers, Mapping) else headers
    for key, value in items:
        if str(key).lower() == name:
            return str(value)
    return None


class PollingControlPlane:
    def __init__(self, env: Any, *, blocking: bool, buggy: bool = False) -> None:
        self._env = env
        self._clock = env.clock
        self._engine = Engine(env, buggy=buggy)
        self._store = self._engine.store
        self._blocking = blocking
        self._due: dict[tuple[str, str], float] = {}
        self.lease_ttl_s = LEASE_TTL_S  # declared to the harness (several workers may share the database)

    # -- the control API -----------------------------------------------------------------------

    def submit(self, job: Mapping[str, Any]) -> dict[str, Any]:
        """Accept a job (idempotent per version; a new version supersedes the older ones)."""
        if not isinstance(job.get("job_id"), str) or not job["job_id"]:
            return {"accepted": False, "error": "a job needs a job_id"}
        record, created = self._store.add_job(job)
        return {"job_id": record.job_id, "task_version": record.task_version, "accepted": True, "duplicate": not created}

    def cancel(self, job_id: str) -> dict[str, Any]:
        """Record the cancellation durably; returning is the acknowledgement."""
        job = self._store.request_cancel(job_id)
        if job is None:
            return {"job_id": job_id, "cancelled": False, "error": "unknown job"}
        return {"job_id": job_id, "task_version": job.task_version, "cancelled": True}

    def report(self, job_id: str) -> dict[str, Any]:
        job = self._store.latest_job(job_id)
        if job is None:
            return unknown_job_report(job_id, self._env.worker_id)
        return build_report(self._store, self._engine.article, self._engine.coding, job, self._env.worker_id)

    def step(self) -> bool:
        return self._step_blocking() if self._blocking else self._step_incremental()

    def receive_webhook(self, headers: Any, body: str | bytes) -> int:
        try:
            self._env.openai.webhooks.verify_signature(body, headers, secret=self._env.openai_webhook_secret)
        except (openai.InvalidWebhookSignatureError, ValueError):
            return 400
        webhook_id = _header(headers, "webhook-id")
        if not webhook_id:
            return 400
        try:
            payload = json.loads(body)
        except ValueError:
            return 400
        data = payload.get("data") if isinstance(payload, Mapping) else None
        session_id = data.get("id") if isinstance(data, Mapping) else None
        event_type = payload.get("type") if isinstance(payload, Mapping) else None
        if not self._store.record_webhook(webhook_id, str(event_type) if event_type else None,
                                          str(session_id) if session_id else None, float(self._clock.now())):
            return 200  # already received: delivery is at-least-once
        if isinstance(session_id, str):
            job = self._store.job_by_session(session_id)
            if job is not None and job.active:
                self._due[job.key] = float(self._clock.now())  # look at the session soon; believe only the session
        return 200

    def close(self) -> None:
        """Nothing to release: every store access opens and closes its own connection."""

    # -- stepping ------------------------------------------------------------------------------

    def _step_incremental(self) -> bool:
        jobs = self._store.active_jobs()
        if not jobs:
            return False
        now = float(self._clock.now())
        earliest = min(self._due.get(job.key, 0.0) for job in jobs)
        if earliest > now:
            self._clock.sleep(min(earliest - now, POLL_MAX_S))
        worked = False
        for job in jobs:
            if self._due.get(job.key, 0.0) > float(self._clock.now()):
                continue
            progress = self._engine.advance(job.key)
            worked = worked or progress.worked
            if progress.wait_s is None:
                self._due.pop(job.key, None)
            elif progress.parked:
                self._due[job.key] = 0.0  # waiting for a person: look again on the next step
            else:
                self._due[job.key] = float(self._clock.now()) + progress.wait_s
        return worked

    def _step_blocking(self) -> bool:
        worked = False
        for job in self._store.active_jobs():
            started = float(self._clock.now())
            for _ in range(BLOCKING_MAX_ROUNDS):
                progress = self._engine.advance(job.key)
                worked = worked or progress.worked
                if (progress.wait_s is None or progress.parked
                        or float(self._clock.now()) - started >= BLOCKING_MAX_VIRTUAL_S):
                    break
                if progress.wait_s > 0:
                    self._clock.sleep(progress.wait_s)
        return worked
