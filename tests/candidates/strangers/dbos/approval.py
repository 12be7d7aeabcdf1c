"""Publishing the finished draft, only under an approval in force at that instant.

Before every attempt (a retry included) the approval is looked up again: active now, for this
job, this task version and this post, and bound to the sha256 of the post's raw content as it is
now. A publish whose answer was lost is settled by reading the post back (a read), never by
sending it again blindly. Publishing also needs ``wp_publish`` among the job's allowed tools.
"""

from __future__ import annotations

import hashlib
from typing import Any

import httpx

from gate import Authority, Forbidden, GatedTransport, guarded
from ledger import Ledger, op_key
from lease import Leases
from settings import Settings
from store import Store
from wordpress import LookupFailed, WordPress


class Approvals:
    """The approval authority (read-only)."""

    def __init__(self, settings: Settings, authority: Authority) -> None:
        self.authority = authority
        self.http = httpx.Client(
            base_url=settings.approvals_url, timeout=settings.io_timeout,
            headers={"Authorization": f"Bearer {settings.approvals_token}"},
            transport=GatedTransport(authority, "approvals"))

    def active(self, job_id: str, version: str) -> list[dict[str, Any]]:
        params: dict[str, Any] = {"job_id": job_id, "task_version": version, "action": "publish",
                                  "status": "active", "limit": 100}
        found: list[dict[str, Any]] = []
        for _ in range(50):
            try:
                response = self.http.get("/approvals", params=params)
            except httpx.HTTPError as exc:
                raise LookupFailed(str(exc)) from exc
            if response.status_code == 401:
                self.authority.refuse("approvals", "HTTP 401")
                raise LookupFailed("approvals token refused")
            if response.status_code != 200:
                raise LookupFailed(f"HTTP {response.status_code}")
            page = response.json()
            found += [a for a in page.get("data") or [] if isinstance(a, dict)]
            if not page.get("has_more") or not page.get("last_id"):
                break
            params["after"] = page["last_id"]
        return found


class Publisher:
    """One look at the approvals, and a publish when one is in force."""

    def __init__(self, settings: Settings, store: Store, ledger: Ledger, wp: WordPress,
                 approvals: Approvals, leases: Leases, authority: Authority) -> None:
        self.settings, self.store, self.ledger, self.wp = settings, store, ledger, wp
        self.approvals, self.leases, self.authority = approvals, leases, authority

    def check(self, job_id: str, version: str) -> None:
        if self.authority.cancelled(job_id):
            raise Forbidden("cancelled")
        row = self.store.version(job_id, version)
        if row is None or not self.store.is_newest(job_id, version):
            raise Forbidden("superseded")
        if "wp_publish" not in row.allowed_tools:
            raise Forbidden("wp_publish is not allowed")

    def step(self, job_id: str, version: str, post_id: int) -> dict[str, Any]:
        key = op_key(job_id, version, "article:publish")
        try:
            self.check(job_id, version)
            op = self.ledger.get(key)
            if op is not None and op.state in ("SENT", "UNKNOWN"):
                if self._settle(key, post_id):
                    return self._published(job_id, version)
            post = self.wp.read_post(post_id)
            if post.get("status") == "publish" and op is not None and op.state == "CONFIRMED":
                return self._published(job_id, version)
            if not self._in_force(job_id, version, post_id, post):
                return {"state": "waiting"}
            self.ledger.prepare(key, job_id, version, "article:publish", "wp_publish", "publish")
            with self.leases.write_lock(job_id):
                token = self.leases.check_and_renew(job_id)
                self.check(job_id, version)
                self.ledger.mark(key, "SENT")
                with guarded(job_id, lambda: self.check(job_id, version)):
                    result = self.wp.update_post(post_id, {"status": "publish"}, job_id, token)
        except Forbidden as exc:
            return {"state": "stop", "reason": exc.reason}
        except LookupFailed as exc:
            return {"state": "waiting", "reason": str(exc)}
        if result.kind == "ok":
            self.ledger.mark(key, "CONFIRMED", remote_id=post_id, receipt={"post_id": post_id})
            return self._published(job_id, version)
        if result.kind in ("definite", "refused"):
            self.ledger.mark(key, "FAILED", error=result.detail, definite=True)
            return {"state": "stop" if result.kind == "refused" else "waiting",
                    "reason": result.detail}
        self.ledger.mark(key, "UNKNOWN", error=result.detail)
        try:
            if self._settle(key, post_id):
                return self._published(job_id, version)
        except LookupFailed:
            pass
        return {"state": "waiting", "reason": result.detail}

    def _in_force(self, job_id: str, version: str, post_id: int, post: dict[str, Any]) -> bool:
        content = post.get("content")
        raw = content.get("raw") if isinstance(content, dict) else content
        digest = hashlib.sha256(str(raw or "").encode("utf-8")).hexdigest()
        for approval in self.approvals.active(job_id, version):
            target = approval.get("target") or {}
            if (approval.get("status") == "active" and str(approval.get("job_id")) == job_id
                    and str(approval.get("task_version")) == version
                    and str(target.get("id")) == str(post_id)
                    and approval.get("content_sha256") == digest):
                return True
        return False

    def _settle(self, key: str, post_id: int) -> bool:
        """Settle a publish whose outcome is unknown by reading the post back."""
        post = self.wp.read_post(post_id)
        if post.get("status") == "publish":
            self.ledger.mark(key, "CONFIRMED", remote_id=post_id, receipt={"post_id": post_id})
            return True
        self.ledger.mark(key, "FAILED", error="not published (read back)")
        return False

    def _published(self, job_id: str, version: str) -> dict[str, Any]:
        self.store.update_version(job_id, version, phase="published", outcome="completed",
                                  approval_status="approved", finished=True)
        return {"state": "published"}
