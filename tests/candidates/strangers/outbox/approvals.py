"""The approval authority (read-only): is a publish approval in force *now* for this post?

Looked up again before every publish attempt, a retry included. An approval counts only when it
is active as of the request, for this job, this task version, action ``publish``, this post
(``target.id``), and the sha256 of the post's raw content as it is now; not expired, not revoked.
"""

from __future__ import annotations

from typing import Any, Callable

import httpx

from .wordpress import Answer, classify_error, classify_response


class Approvals:
    """Reads of ``GET /approvals``."""

    def __init__(self, env: Any, on_revoked: Callable[[str], None]) -> None:
        self.http: httpx.Client = env.http
        self.url = env.approvals_url.rstrip("/")
        self.token = env.approvals_token
        self.on_revoked = on_revoked

    def _get(self, params: dict[str, Any]) -> Answer:
        try:
            response = self.http.get(self.url + "/approvals", params=params,
                                     headers={"Authorization": f"Bearer {self.token}"})
        except httpx.HTTPError as exc:
            return classify_error(exc)
        answer = classify_response(response)
        if answer.kind == "revoked":
            self.on_revoked("approvals")
        return answer

    def active(self, *, job_id: str, version: str) -> tuple[Answer, list[dict[str, Any]]]:
        """The first page of this version's active publish approvals (a cheap look first: the
        post is read for its digest only when there is an approval to check it against)."""
        answer = self._get({"job_id": job_id, "task_version": version, "action": "publish",
                            "status": "active", "limit": 100})
        if not answer.ok or not isinstance(answer.body, dict):
            return answer, []
        return answer, list(answer.body.get("data") or [])

    def in_force(self, *, job_id: str, version: str, post_id: int, content_sha256: str,
                 now_unix: float) -> tuple[Answer, dict[str, Any] | None]:
        """The approval in force for this exact post and content, or None."""
        params: dict[str, Any] = {"job_id": job_id, "task_version": version, "action": "publish",
                                  "status": "active", "limit": 100}
        for _ in range(50):
            answer = self._get(params)
            if not answer.ok or not isinstance(answer.body, dict):
                return answer, None
            for approval in answer.body.get("data") or []:
                if _covers(approval, job_id, version, post_id, content_sha256, now_unix):
                    return answer, approval
            if not answer.body.get("has_more") or not answer.body.get("last_id"):
                return answer, None
            params["after"] = answer.body["last_id"]
        return Answer("unknown", detail="too many approval pages"), None


def _covers(approval: dict[str, Any], job_id: str, version: str, post_id: int,
            content_sha256: str, now_unix: float) -> bool:
    target = approval.get("target") or {}
    expires = approval.get("expires_at")
    return (approval.get("status") == "active"
            and approval.get("job_id") == job_id
            and str(approval.get("task_version")) == str(version)
            and approval.get("action") == "publish"
            and target.get("service", "wordpress") == "wordpress"
            and target.get("type", "post") == "post"
            and str(target.get("id")) == str(post_id)
            and approval.get("content_sha256") == content_sha256
            and approval.get("revoked_at") is None
            and (expires is None or float(expires) > now_unix))
