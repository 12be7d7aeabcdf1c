"""The approval authority (read-only): is there an approval in force now for this publish?

An approval counts only when it is active as of the request, for this job, this task version,
the action `publish` and this post (`target.id`), and when its `content_sha256` is the digest of
the post's raw content as it is now. It is looked up again before every publish attempt.
"""

from __future__ import annotations

from typing import Any

import httpx

from .httpio import http_client, json_body
from .settings import Clock, Settings


class Approvals:
    """Lists approvals; never writes (any other method is refused and counted against us)."""

    def __init__(self, settings: Settings, clock: Clock) -> None:
        self.url = settings.approvals_url
        self.headers = {"Authorization": f"Bearer {settings.approvals_token}"}
        self.clock = clock
        self.http = http_client(clock.timeout(30.0))

    def active(self, job_id: str, version: str) -> tuple[httpx.Response | None, list[dict[str, Any]]]:
        """(a refused response, []) or (None, the active publish approvals of this job version)."""
        found: list[dict[str, Any]] = []
        params: dict[str, Any] = {"job_id": job_id, "task_version": version, "action": "publish",
                                  "status": "active", "limit": 100}
        for _ in range(100):
            resp = self.http.get(self.url + "/approvals", params=params, headers=self.headers,
                                 timeout=self.clock.timeout(30.0))
            if resp.status_code != 200:
                return resp, []
            body = json_body(resp)
            data = body.get("data", []) if isinstance(body, dict) else []
            found.extend(a for a in data if isinstance(a, dict))
            if not (isinstance(body, dict) and body.get("has_more") and body.get("last_id")):
                break
            params["after"] = body["last_id"]
        return None, found


def in_force(approval: dict[str, Any], job_id: str, version: str, post_id: int, now_unix: float) -> bool:
    """The approval's own fields agree (the digest is checked against the post separately)."""
    target = approval.get("target") or {}
    if approval.get("status") != "active" or approval.get("revoked_at") is not None:
        return False
    if str(approval.get("job_id")) != job_id or str(approval.get("task_version")) != version:
        return False
    if approval.get("action") != "publish" or str(target.get("id")) != str(post_id):
        return False
    expires = approval.get("expires_at")
    return expires is None or float(expires) > now_unix
