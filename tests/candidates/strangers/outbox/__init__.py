"""An outbox control plane for durable-harness, written from its user documentation alone.

Every side effect is first written to an outbox row in the control plane's own database, then
sent, then confirmed; an outcome nobody saw (a timeout, a reset, a 5xx, a crash mid-request) is
settled by reading the world back — the post or medium by its operation key, the post's fields —
never by sending blindly. See README.md.

``create(env)`` builds the correct control plane; ``create_buggy(env)`` the same design with one
safeguard removed (a SENT row left by a crashed instance is sent again without a read-back).
"""

from __future__ import annotations

from typing import Any

from .control_plane import OutboxControlPlane
from .safeguards import CORRECT, WITHOUT_READ_BACK_AFTER_RESTART


def create(env: Any) -> OutboxControlPlane:
    """The control plane, every safeguard on."""
    return OutboxControlPlane(env, CORRECT)


def create_buggy(env: Any) -> OutboxControlPlane:
    """The same design without the read-back of SENT rows found after a restart."""
    return OutboxControlPlane(env, WITHOUT_READ_BACK_AFTER_RESTART)


__all__ = ["create", "create_buggy", "OutboxControlPlane"]
