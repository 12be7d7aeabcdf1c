"""What the graph's nodes work with, and the job facts they derive from the ledger.

`Deps` bundles the clients, the stores and the clock; it is built once per process and closed
over by the node functions (LangGraph's state holds only plain, serialisable values).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from .agentapi import AgentAPI
from .approvals import Approvals
from .leases import Leases
from .ledger import Ledger, Operation
from .settings import Clock, Settings
from .store import Store
from .wordpress import WordPress

POLL_S = 1.5          # scenario seconds between two reads of a working session
APPROVAL_POLL_S = 5.0  # scenario seconds between two looks for an approval
MAX_ATTEMPTS = 6       # attempts of one write within one run of its node
MAX_BACKOFF_S = 30.0


@dataclass
class Deps:
    settings: Settings
    clock: Clock
    store: Store
    ledger: Ledger
    leases: Leases
    wp: WordPress
    api: AgentAPI
    approvals: Approvals
    wake: threading.Event = field(default_factory=threading.Event)

    @property
    def reconcile_on_rerun(self) -> bool:
        """The one safeguard the buggy variant removes (see README)."""
        return not self.settings.buggy

    def pause(self, job_id: str, seconds: float) -> bool:
        """Wait scenario seconds, renewing the lease; False when the job stopped being ours."""
        end = self.clock.now() + seconds
        while True:
            left = end - self.clock.now()
            if left <= 0:
                return True
            self.clock.sleep(min(left, 3.0))
            if not self.leases.renew(job_id):
                return False
            job = self.store.job(job_id)
            if job is not None and job["cancelled_at"] is not None:
                return False


def backoff(attempt: int, retry_after: float | None) -> float:
    """Scenario seconds before attempt `attempt + 1`: doubling from 2 s, at least Retry-After."""
    wait = min(MAX_BACKOFF_S, 2.0 * (2 ** attempt))
    return max(wait, retry_after or 0.0)


def job_images(job: dict[str, Any]) -> int:
    try:
        return int((job.get("input") or {}).get("images", 3))
    except (TypeError, ValueError):
        return 3


def confirmed(ops: dict[str, Operation], role: str) -> Operation | None:
    op = ops.get(role)
    return op if op is not None and op.state == "CONFIRMED" else None


def article_roles(images: int) -> list[str]:
    return [f"image:{n}" for n in range(1, images + 1)] + ["article", "article:update", "article:seo"]


def article_finished(ops: dict[str, Operation], images: int) -> bool:
    """Every write the world needs for an article awaiting approval is confirmed."""
    return all(confirmed(ops, role) for role in article_roles(images))


def definite_failure(ops: dict[str, Operation], images: int) -> str | None:
    """A needed write refused for good (a definite 4xx): the job cannot finish."""
    for role in article_roles(images):
        op = ops.get(role)
        if op is not None and op.state == "FAILED" and op.definite:
            return f"{role}: {op.error}"
    return None


def recovery_summary(ops: dict[str, Operation], images: int) -> str:
    """The contract's RECOVERY SUMMARY: every role done, with its receipt."""
    import json

    done: dict[str, Any] = {}
    for role in article_roles(images) + ["article:read"]:
        op = confirmed(ops, role)
        if op is None or op.remote_id is None:
            continue
        key = "media_id" if role.startswith("image:") else "post_id"
        done[role] = {key: int(op.remote_id)}
    return "RECOVERY SUMMARY\n" + json.dumps({"done": done})
