"""The approval authority, read-only: which publish approvals are in force for a job right now.

``GET <url>/approvals`` with a bearer token lists approvals oldest first, filtered by job, task
version, action and status (as of the request), paged with ``limit`` and ``after``. Nothing is ever
written to it. An approval counts only when it is active now, for this job, this task version, the
``publish`` action and this WordPress post; whether it covers the post's content (its digest) is
the publisher's check, against the post as it is now.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from tests.candidates.strangers.polling.credentials import Credentials

__all__ = ["Approval", "Approvals", "ApprovalsUnavailable"]

PAGE_LIMIT = 100
MAX_PAGES = 20


class ApprovalsUnavailable(Exception):
    """The authority could not be read just now (a transport error, a 5xx, an unexpected answer)."""


@dataclass(frozen=True)
class Approval:
    approval_id: str
    post_id: int
    content_sha256: str
    expires_at: float | None


def _approval(item: Mapping[str, Any], *, job_id: str, task_version: str, now_unix: float) -> Approval | None:
    """The approval, if it is one in force now for this job version's publish of a WordPress post."""
    target = item.get("target")
    if not isinstance(target, Mapping):
        return None
    expires_at = item.get("expires_at")
    if (item.get("status") != "active" or item.get("revoked_at") is not None
            or item.get("job_id") != job_id or str(item.get("task_version")) != task_version
            or item.get("action") != "publish" or target.get("service") != "wordpress"
            or target.get("type") != "post" or not isinstance(target.get("id"), int)
            or not isinstance(item.get("content_sha256"), str) or not isinstance(item.get("id"), str)):
        return None
    if isinstance(expires_at, (int, float)) and not isinstance(expires_at, bool) and expires_at <= now_unix:
        return None
    return Approval(approval_id=item["id"], post_id=int(target["id"]), content_sha256=str(item["content_sha256"]).lower(),
                    expires_at=float(expires_at) if isinstance(expires_at, (int, float)) else None)


class Approvals:
    """A read-only client of the approval authority through the harness-provided ``httpx.Client``."""

    def __init__(self, http: httpx.Client, url: str, token: str, credentials: Credentials) -> None:
        self._http = http
        self._url = url.rstrip("/") + "/approvals"
        self._headers = {"Authorization": f"Bearer {token}"}
        self._credentials = credentials

    def in_force(self, *, job_id: str, task_version: str, post_id: int, now_unix: float) -> list[Approval]:
        """Every approval in force now for publishing this post of this job version (every page)."""
        found: list[Approval] = []
        after: str | None = None
        for _ in range(MAX_PAGES):
            params = {"job_id": job_id, "task_version": task_version, "action": "publish", "status": "active",
                      "limit": str(PAGE_LIMIT)}
            if after is not None:
                params["after"] = after
            page = self._get(params)
            data = page.get("data")
            if not isinstance(data, list):
                raise ApprovalsUnavailable("the approvals list has no data")
            for item in data:
                if isinstance(item, Mapping):
                    approval = _approval(item, job_id=job_id, task_version=task_version, now_unix=now_unix)
                    if approval is not None and approval.post_id == post_id:
                        found.append(approval)
            last = page.get("last_id")
            if not page.get("has_more") or not isinstance(last, str):
                return found
            after = last
        raise ApprovalsUnavailable(f"more than {MAX_PAGES} pages of approvals")

    def _get(self, params: Mapping[str, str]) -> Mapping[str, Any]:
        self._credentials.check("approvals")
        try:
            response = self._http.get(self._url, params=dict(params), headers=self._headers)
        except httpx.TransportError as exc:
            raise ApprovalsUnavailable(f"no answer from the approval authority: {type(exc).__name__}") from exc
        if response.status_code == 401:
            raise self._credentials.refused("approvals", "401 from the approval authority")
        if response.status_code != 200:
            raise ApprovalsUnavailable(f"the approval authority answered {response.status_code}")
        try:
            body = response.json()
        except ValueError as exc:
            raise ApprovalsUnavailable("the approval authority's answer is not JSON") from exc
        if not isinstance(body, Mapping):
            raise ApprovalsUnavailable("the approval authority's answer is not an object")
        return body
