"""One write to WordPress, done at most once: ledger first, reconcile before any resend.

`perform_write` is what every side-effecting node calls. Its order is the contract's:
1. the ledger row for the business action: CONFIRMED → the stored receipt, nothing is sent;
   FAILED for good → the same refusal, nothing is sent;
2. a row left SENT or UNKNOWN (a request whose answer nobody saw: this node ran before, in a
   process that died, or its answer was lost) → look the write up by its key first;
3. only then, through the write guard, mark it SENT and send it; on an unknown outcome look it up
   again, and retry with bounded backoff (at least `Retry-After`).

The buggy variant (`--buggy`) skips step 2 for a row left SENT: it trusts LangGraph's checkpoint
(the node "did not run") and sends again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import httpx

from . import httpio
from .deps import MAX_ATTEMPTS, Deps, backoff
from .leases import NotOurs


@dataclass
class Effect:
    status: str  # ok | definite | revoked | blocked | pending
    result: dict[str, Any] | None = None
    error: str = ""


@dataclass
class Found:
    status: str  # found | absent | revoked | error
    remote_id: Any = None
    result: dict[str, Any] | None = None
    error: str = ""


Sender = Callable[[int], httpx.Response]
Parser = Callable[[httpx.Response], tuple[Any, dict[str, Any]]]
Lookup = Callable[[], Found]


def lookup_response(deps: Deps, resp: httpx.Response | None) -> Found:
    """A refused lookup: a revoked credential, or an error to try again later."""
    if resp is None:
        return Found("absent")
    failure = httpio.classify_status(resp.status_code, httpio.json_body(resp), resp.headers)
    if failure.kind == "revoked":
        deps.store.revoke("wordpress", deps.clock.now(), failure.describe())
        return Found("revoked", error=failure.describe())
    return Found("error", error=failure.describe())


def safe_lookup(deps: Deps, lookup: Lookup) -> Found:
    try:
        return lookup()
    except httpx.HTTPError as exc:
        return Found("error", error=f"{type(exc).__name__}: {exc}")


def perform_write(deps: Deps, *, job_id: str, version: str, role: str, kind: str, tool: str | None,
                  rhash: str, send: Sender, parse: Parser, lookup: Lookup | None,
                  request: dict[str, Any] | None = None) -> Effect:
    """Do the business action `role` once; see the module docstring."""
    key = f"{job_id}/v{version}/{role}"
    op = deps.ledger.prepare(key, job_id, version, role, kind, rhash, request)
    if op.state == "CONFIRMED":
        return Effect("ok", op.result or {})
    if op.state == "FAILED" and op.definite:
        return Effect("definite", error=op.error or "refused")
    in_doubt = op.state == "UNKNOWN" or (op.state == "SENT" and deps.reconcile_on_rerun)
    if in_doubt and lookup is not None:
        found = safe_lookup(deps, lookup)
        if found.status == "found":
            deps.ledger.confirm(key, found.remote_id, found.result)
            return Effect("ok", found.result or {})
        if found.status == "revoked":
            return Effect("revoked", error=found.error)
        if found.status == "error":
            return Effect("pending", error=found.error)
    for attempt in range(MAX_ATTEMPTS):
        try:
            with deps.leases.write(job_id, version, tool) as token:
                deps.ledger.sent(key)
                try:
                    resp: httpx.Response | None = send(token)
                    failure = None
                except httpx.HTTPError as exc:
                    resp, failure = None, httpio.classify_exception(exc)
        except NotOurs as exc:
            return Effect("blocked", error=exc.reason)
        if resp is not None and resp.status_code < 300:
            remote_id, result = parse(resp)
            deps.ledger.confirm(key, remote_id, result)
            return Effect("ok", result)
        if resp is not None:
            body = httpio.json_body(resp)
            if resp.status_code == 409 and isinstance(body, dict) and body.get("code") == "rest_fencing_token_stale":
                deps.ledger.unknown(key, "fenced: a newer writer holds the job")
                return Effect("blocked", error="fenced")
            failure = httpio.classify_status(resp.status_code, body, resp.headers)
        assert failure is not None
        if failure.kind == "revoked":
            deps.store.revoke("wordpress", deps.clock.now(), failure.describe())
            deps.ledger.failed(key, failure.describe(), definite=True)
            return Effect("revoked", error=failure.describe())
        if failure.kind == "definite":
            deps.ledger.failed(key, failure.describe(), definite=True)
            return Effect("definite", error=failure.describe())
        if failure.kind == "refused":
            deps.ledger.failed(key, failure.describe(), definite=False)  # nothing was sent
        else:
            deps.ledger.unknown(key, failure.describe())
        if not deps.pause(job_id, backoff(attempt, failure.retry_after)):
            return Effect("blocked", error="lease lost or job cancelled while waiting")
        if failure.kind == "unknown" and lookup is not None:
            found = safe_lookup(deps, lookup)
            if found.status == "found":
                deps.ledger.confirm(key, found.remote_id, found.result)
                return Effect("ok", found.result or {})
            if found.status == "revoked":
                return Effect("revoked", error=found.error)
            if found.status == "error":
                return Effect("pending", error=found.error)
    return Effect("pending", error="the service has not healed yet")


def settle(deps: Deps, key: str, lookup: Lookup | None) -> None:
    """After a cancellation: resolve an operation in doubt by reading only (no write)."""
    if lookup is None:
        return  # an SEO call cannot be read back: it stays UNKNOWN, as the contract says
    found = safe_lookup(deps, lookup)
    if found.status == "found":
        deps.ledger.confirm(key, found.remote_id, found.result)
    elif found.status == "absent":
        deps.ledger.failed(key, "not found by its operation key", definite=False)
