"""The approval authority, as the reference reads it (read-only, with its token).

``for_target`` lists the approvals in force now for publishing one post of a job (and of one task
version), through every page. An approval binds the content it approved by digest
(``content_digest``): the caller compares it with the post as it is now.

What it deliberately does not do: cache an approval (it may be revoked or expire at any time).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import httpx

__all__ = ["ApprovalRefused", "Approvals", "content_digest"]

MAX_PAGES = 20


class ApprovalRefused(Exception):
    """The approval authority refused the token (401): a human must give a new one."""


def content_digest(content: str) -> str:
    """The digest an approval binds: sha256 of the post's raw content."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


class Approvals:
    def __init__(self, http: httpx.Client, url: str, token: str) -> None:
        self._http = http
        self._url = url.rstrip("/")
        self._auth = {"authorization": f"Bearer {token}"}

    def for_target(self, job_id: str, task_version: str | None, post_id: int) -> list[Mapping[str, Any]]:
        """Approvals in force now for publishing ``post_id`` of this job (and of ``task_version``;
        None looks at every version, as a control plane that does not bind them would)."""
        params = {"job_id": job_id, "action": "publish", "status": "active", "limit": "100"}
        if task_version is not None:
            params["task_version"] = task_version
        found: list[Mapping[str, Any]] = []
        after: str | None = None
        for _ in range(MAX_PAGES):
            page = self._get({**params, **({"after": after} if after else {})})
            found += [dict(a) for a in page.get("data", []) if int((a.get("target") or {}).get("id", -1)) == post_id]
            if not page.get("has_more"):
                break
            after = page.get("last_id")
        return found

    def _get(self, params: Mapping[str, str]) -> Mapping[str, Any]:
        response = self._http.get(f"{self._url}/approvals", params=dict(params), headers=self._auth)
        if response.status_code == 401:
            raise ApprovalRefused("the approval authority refused the token")
        response.raise_for_status()
        page: Mapping[str, Any] = response.json()
        return page
