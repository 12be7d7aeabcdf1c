"""``ApprovalsFake``: the approval authority as the gate sees it (a ``Service``), read-only for the
candidate.

``GET /v1/approvals`` lists approvals, oldest first, filtered by ``job_id``, ``task_version``,
``action`` and ``status`` (``active``, ``revoked``, ``expired``, as of the request), paged with
``limit`` (1-100, default 20) and ``after`` (an approval id): ``{"object": "list", "data": [...],
"first_id", "last_id", "has_more"}``. ``GET /v1/approvals/{id}`` reads one. Every request needs
``Authorization: Bearer <token>`` (401 ``invalid_token`` when missing, wrong or revoked). Any
other method is refused: 403 ``read_only`` (approvals are granted by reviewers, not by control
planes); nothing changes.

What it deliberately does not do: grant anything through HTTP (the harness's reviewer calls
``state`` directly), or judge a publish.
"""

from __future__ import annotations

import dataclasses
import hmac
import json
from typing import Any

from durable_harness.fakes.approvals._state import Approval, ApprovalState, Clock
from durable_harness.wire import Request, Response, json_response

__all__ = ["ApprovalsFake"]

_FILTERS = ("job_id", "task_version", "action", "status")
_STATUSES = ("active", "revoked", "expired")


@dataclasses.dataclass
class _Token:
    secret: str
    label: str
    revoked: bool = False


class ApprovalsFake:
    name = "approvals"
    root = "/v1"

    def __init__(self, clock: Clock, *, token: str, host: str = "approvals.dh.test") -> None:
        self.host = host
        self._clock = clock
        self.state = ApprovalState(clock)
        self._tokens = [_Token(token, "approvals-token#1")]

    # -- the Service protocol ------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        token = self._token(request)
        if token is None or token.revoked:
            return _error(401, "invalid_token", "Missing, unknown or revoked bearer token.")
        path = request.path[len(self.root):] if request.path.startswith(self.root) else request.path
        if request.method not in ("GET", "HEAD"):
            return _error(403, "read_only", "Approvals are granted by reviewers; this token can only read them.")
        if path.rstrip("/") == "/approvals":
            return self._list(request)
        if path.startswith("/approvals/") and path.count("/") == 2:
            approval = self.state.get(path.rsplit("/", 1)[1])
            if approval is None:
                return _error(404, "not_found", f"No approval {path.rsplit('/', 1)[1]!r}.")
            return json_response(200, self._object(approval))
        return _error(404, "not_found", f"No route {request.method} {request.path}.")

    def mutations(self) -> int:
        return self.state.mutations

    def credential(self, request: Request) -> str | None:
        header = request.header("authorization")
        if not header:
            return None
        token = self._token(request)
        if token is None:
            return "unknown-token"
        return f"{token.label} (revoked)" if token.revoked else token.label

    def truth(self) -> dict[str, Any]:
        return {"approvals": self.state.truth(),
                "tokens": [{"label": t.label, "revoked": t.revoked} for t in self._tokens]}

    # -- the harness's controls ----------------------------------------------------------------
    def revoke_token(self) -> str:
        """Revoke every token; returns the label of the one in use."""
        for t in self._tokens:
            t.revoked = True
        return self._tokens[0].label

    # -- helpers ---------------------------------------------------------------------------------
    def _token(self, request: Request) -> _Token | None:
        scheme, _, secret = (request.header("authorization") or "").partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            return None
        return next((t for t in self._tokens if hmac.compare_digest(t.secret.encode(), secret.strip().encode())), None)

    def _list(self, request: Request) -> Response:
        wanted = {k: v for k in _FILTERS if (v := request.arg(k)) is not None}
        if "status" in wanted and wanted["status"] not in _STATUSES:
            return _error(400, "invalid_value", f"status={wanted['status']!r} must be one of {', '.join(_STATUSES)}.",
                          "status")
        limit_text = request.arg("limit", "20") or "20"
        if not limit_text.isdigit() or not 1 <= int(limit_text) <= 100:
            return _error(400, "invalid_value", f"limit={limit_text!r} must be an integer from 1 to 100.", "limit")
        items = self.state.select(**wanted)
        after = request.arg("after")
        if after is not None:
            ids = [a.id for a in items]
            if after not in ids:
                return _error(400, "invalid_value", f"after={after!r} is not an approval of this listing.", "after")
            items = items[ids.index(after) + 1:]
        page = items[:int(limit_text)]
        data = [self._object(a) for a in page]
        return json_response(200, {"object": "list", "data": data, "first_id": data[0]["id"] if data else None,
                                   "last_id": data[-1]["id"] if data else None, "has_more": len(items) > len(page)})

    def _object(self, a: Approval) -> dict[str, Any]:
        return {"id": a.id, "object": "approval", "job_id": a.job_id, "task_version": a.task_version,
                "action": a.action, "target": dict(a.target), "content_sha256": a.content_sha256,
                "granted_by": a.granted_by, "granted_at": self._unix(a.granted_at_s),
                "expires_at": None if a.expires_at_s is None else self._unix(a.expires_at_s),
                "revoked_at": None if a.revoked_at_s is None else self._unix(a.revoked_at_s),
                "status": a.status_at(self._clock.now())}

    def _unix(self, t: float) -> int:
        return int(self._clock.unix() - self._clock.now() + t)


def _error(status: int, code: str, message: str, param: str | None = None) -> Response:
    body = {"error": {"type": "invalid_request_error" if status == 400 else code, "code": code, "message": message,
                      "param": param}}
    return Response(status=status, headers={"content-type": "application/json"}, body=json.dumps(body).encode())
