"""A polling control plane written from the candidate contract alone.

It never follows the session's event stream: it reads the session (``sessions.retrieve``) and
waits on the virtual clock between reads. Its state lives in its own SQLite store (jobs, a
side-effect ledger keyed by operation key, the agent's calls with their prepared answers, user
messages, checked deliveries, received webhooks), so a new instance on the same database carries
on where a crashed one stopped.

It acts only under the authority it has at that instant (``authority``, ``publishing``,
``stopping``, ``credentials``): a finished article is published only under an approval in force
now, looked up before every attempt; a cancellation is recorded before it is acknowledged, and
from then on the job only reads and cancels its turn; a new task version supersedes the old ones;
a credential a service refused is never used again; and only the job's allowed tools, as they are
now, are declared and executed.

Two factories, two stepping styles the contract allows:

- ``create``: each ``step()`` does what is available now and returns;
- ``create_blocking``: one ``step()`` carries each job until it settles.

``create_buggy`` is the one-bug variant: a create (a draft, an upload) whose outcome it does not know
(a lost answer, a 5xx after the write, a crash in between) is sent again without looking it up by
its operation key first.
"""

from __future__ import annotations

from typing import Any

from tests.candidates.strangers.polling.control_plane import PollingControlPlane

__all__ = ["PollingControlPlane", "create", "create_blocking", "create_buggy"]


def create(env: Any) -> PollingControlPlane:
    """The incremental control plane: one look at each due job per step."""
    return PollingControlPlane(env, blocking=False)


def create_blocking(env: Any) -> PollingControlPlane:
    """The blocking control plane: one step runs each job until it settles."""
    return PollingControlPlane(env, blocking=True)


def create_buggy(env: Any) -> PollingControlPlane:
    """The one-bug variant: an unknown create is sent again, never looked up first."""
    return PollingControlPlane(env, blocking=False, buggy=True)
