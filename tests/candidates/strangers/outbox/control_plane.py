"""The control API the harness drives: submit, cancel, report, step, receive_webhook.

An instance holds no state of its own worth keeping: every call reads and writes the database, so
a new instance (after a crash, or another worker) continues exactly where the last commit left
off. ``step`` polls: it reads each job's session and ledger and does what is due now, and returns
False when nothing was (the agent is thinking, an approval is awaited), so the harness can let
virtual time pass. Webhooks are verified, deduplicated by ``webhook-id``, and taken only as hints:
the session is always read before anything is decided.
"""

from __future__ import annotations

import threading
from typing import Any, Mapping

from .approvals import Approvals
from .article import Article
from .authority import Leases, WriterLock
from .coding import Coding
from .effects import Effects
from .jobs import Jobs
from .outbox import Outbox
from .replies import Replies
from .report import build_report
from .runner import Runner
from .safeguards import Safeguards
from .sessions import Sessions
from .store import Store
from .wordpress import WordPress

LEASE_TTL_S = 30.0


class OutboxControlPlane:
    """A control plane built on an outbox that reconciles by reading."""

    lease_ttl_s = LEASE_TTL_S

    def __init__(self, env: Any, safeguards: Safeguards) -> None:
        self.env = env
        self.clock = env.clock
        self.worker_id = str(getattr(env, "worker_id", None) or "worker-1")
        self.store = Store(env.database_url)
        incarnation = self.store.bump_counter(f"incarnation:{self.worker_id}")
        self.jobs = Jobs(self.store)
        self.outbox = Outbox(self.store)
        self.wp = WordPress(env, self._revoked)
        self.sessions = Sessions(env, self._revoked)
        self.approvals = Approvals(env, self._revoked)
        self.replies = Replies(self.store, self.sessions, self.clock)
        self.effects = Effects(self.wp, self.outbox, self.clock, safeguards)
        self.article = Article(self.effects, self.outbox, self.wp, self.approvals, self.clock)
        self.leases = Leases(self.store, self.worker_id, f"{self.worker_id}#{incarnation}",
                             LEASE_TTL_S)
        self.runner = Runner(env=env, store=self.store, jobs=self.jobs, outbox=self.outbox,
                             replies=self.replies, sessions=self.sessions, effects=self.effects,
                             article=self.article, coding=Coding(self.sessions),
                             leases=self.leases, lock=WriterLock(self.store), safeguards=safeguards)
        self._calls = threading.RLock()

    def _revoked(self, service: str) -> None:
        """A credential was refused (401): recorded at once, never used again."""
        if self.store.flag(f"revoked:{service}") is None:
            self.store.set_flag(f"revoked:{service}", str(self.clock.now()))

    # --- the control API ------------------------------------------------------------------------------
    def submit(self, job: dict[str, Any]) -> dict[str, Any]:
        return self.jobs.submit(job)

    def cancel(self, job_id: str) -> dict[str, Any]:
        # committed before it is acknowledged; a write already on its way was sent before it
        return self.jobs.cancel(str(job_id), self.clock.now())

    def report(self, job_id: str) -> dict[str, Any]:
        return build_report(str(job_id), jobs=self.jobs, store=self.store, outbox=self.outbox,
                            article=self.article, worker_id=self.worker_id,
                            owner=self.leases.owner(str(job_id)))

    def step(self) -> bool:
        with self._calls:
            progress = False
            for job_id in self.jobs.job_ids():
                progress = self.runner.advance(job_id) or progress
            return progress

    def receive_webhook(self, headers: Mapping[str, str], body: bytes | str) -> int:
        lowered = {str(k).lower(): str(v) for k, v in dict(headers).items()}
        try:
            self.env.openai.webhooks.verify_signature(body, lowered,
                                                      secret=self.env.openai_webhook_secret)
        except Exception:  # a bad signature, a stale timestamp, a malformed header: refused
            return 400
        webhook_id = lowered.get("webhook-id")
        if not webhook_id:
            return 400
        self.store.remember_webhook(webhook_id, self.clock.now())
        return 200  # a hint only: the next step reads the session before deciding anything

    def close(self) -> None:
        self.store.engine.dispose()
