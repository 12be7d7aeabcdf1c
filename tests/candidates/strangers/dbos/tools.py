"""Executing the article workload's tool calls against WordPress, through the ledger.

``ToolRunner.run`` is the body of a DBOS step, and DBOS steps are at-least-once: a step cut
short by a crash runs again on recovery, and the same business action also comes back when the
agent re-plans or the platform retries a step under a new call id. So the step itself is
idempotent: it finds the action's ledger row by its operation key, answers from a CONFIRMED row
without writing, and looks a SENT or UNKNOWN create up on the site *before* sending it again.

The one-bug variant (``settings.buggy``) trusts the framework instead: it skips that lookup and
sends the create again, as if DBOS made each step exactly-once.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from typing import Any

from gate import Authority, Forbidden, guarded
from ledger import Ledger, op_key
from lease import Leases
from settings import Settings
from store import Store
from wordpress import LookupFailed, WordPress, WPResult

CREATES = {"wp_upload_media": "media", "wp_create_draft": "posts"}
SETTERS = ("wp_update_post", "wp_set_seo")
MAX_ATTEMPTS = 5


def answer(success: bool, output: dict[str, Any] | None = None, error: str | None = None,
           ) -> dict[str, Any]:
    return {"kind": "answer", "success": success,
            "output": json.dumps(output) if output is not None else None, "error": error}


def stop(reason: str) -> dict[str, Any]:
    return {"kind": "stop", "reason": reason}


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


class ToolRunner:
    """Runs one function call of the article agent."""

    def __init__(self, settings: Settings, store: Store, ledger: Ledger, wp: WordPress,
                 leases: Leases, authority: Authority) -> None:
        self.settings, self.store, self.ledger, self.wp = settings, store, ledger, wp
        self.leases, self.authority = leases, authority

    def check(self, job_id: str, version: str, tool: str) -> None:
        """The authority a write needs, checked again right before its bytes leave."""
        if self.authority.cancelled(job_id):
            raise Forbidden("cancelled")
        row = self.store.version(job_id, version)
        if row is None or not self.store.is_newest(job_id, version):
            raise Forbidden("superseded")
        if tool not in row.allowed_tools:
            raise Forbidden(f"tool {tool} is no longer allowed")

    def run(self, job_id: str, version: str, call: dict[str, Any]) -> dict[str, Any]:
        name = str(call.get("name"))
        args = call.get("arguments") or {}
        if isinstance(args, str):
            args = json.loads(args or "{}")
        row = self.store.version(job_id, version)
        assert row is not None
        if name not in row.allowed_tools:
            self.store.update_version(job_id, version, note=f"blocked: tool {name} not allowed")
            return answer(False, error=f"The tool '{name}' is not among the job's allowed tools.")
        ops = {op.role: op for op in self.ledger.for_version(job_id, version)}
        article = ops.get("article")
        post_id = int(article.remote_id) if article and article.state == "CONFIRMED" \
            and article.remote_id else None
        if name in ("wp_update_post", "wp_set_seo", "wp_get_post"):
            try:
                wanted = int(str(args.get("post_id")))
            except (TypeError, ValueError):
                return answer(False, error="post_id must be an integer")
            if post_id is None or wanted != post_id:
                return answer(False, error=f"post {wanted} is not this job's article")
        if name == "wp_get_post":
            return self._read(job_id, version, post_id or 0)
        if name == "wp_upload_media":
            raw = base64.b64decode(str(args.get("content_base64") or ""))
            request_hash = hashlib.sha256(raw).hexdigest()
            same = self.ledger.media_by_digest(job_id, version, request_hash)
            count = sum(1 for op in ops.values() if op.kind == "wp_upload_media")
            role = same.role if same else f"image:{count + 1}"
        elif name == "wp_create_draft":
            role, request_hash = "article", _digest(args)
        elif name == "wp_update_post":
            media = {int(op.remote_id) for op in ops.values()
                     if op.kind == "wp_upload_media" and op.state == "CONFIRMED" and op.remote_id}
            if args.get("featured_media") is not None and int(args["featured_media"]) not in media:
                return answer(False, error="featured_media is not one of this job's images")
            role, request_hash = "article:update", _digest(args)
        elif name == "wp_set_seo":
            role, request_hash = "article:seo", _digest(args)
        else:
            return answer(False, error=f"The tool '{name}' is not one this control plane performs.")
        key = op_key(job_id, version, role)
        op = self.ledger.prepare(key, job_id, version, role, name, request_hash)
        if op.state == "CONFIRMED" and (name in CREATES or op.request_hash == request_hash):
            return answer(True, op.receipt)
        if op.state == "FAILED" and op.definite and op.request_hash == request_hash:
            return answer(False, error=op.error)
        if op.state in ("SENT", "UNKNOWN") and name in CREATES and not self.settings.buggy:
            found = self._lookup(CREATES[name], key)
            if isinstance(found, dict):
                return self._confirm(key, name, found, args)
            if found == "later":
                return {"kind": "later", "reason": "lookup failed"}
        return self._perform(job_id, version, key, name, args, post_id, request_hash)

    # -- the write loop ----------------------------------------------------------------
    def _perform(self, job_id: str, version: str, key: str, name: str, args: dict[str, Any],
                 post_id: int | None, request_hash: str) -> dict[str, Any]:
        last: WPResult | None = None
        for attempt in range(MAX_ATTEMPTS):
            try:
                with self.leases.write_lock(job_id):
                    token = self.leases.check_and_renew(job_id)
                    self.check(job_id, version, name)
                    self.ledger.mark(key, "SENT", request_hash=request_hash,
                                     receipt=self._intent(name, args))
                    with guarded(job_id, lambda: self.check(job_id, version, name)):
                        last = self._send(key, name, args, post_id, job_id, token)
            except Forbidden as exc:
                return stop(exc.reason)
            if last.kind == "ok":
                body = last.body if isinstance(last.body, dict) else {}
                return self._confirm(key, name, body, args, post_id)
            if last.kind == "refused":
                self.ledger.mark(key, "FAILED", error=last.detail, definite=True)
                return stop("refused")
            if last.kind == "fenced":
                self.ledger.mark(key, "UNKNOWN", error=last.detail)
                return stop("fenced")
            if last.kind == "definite":
                self.ledger.mark(key, "FAILED", error=last.detail, definite=True)
                return answer(False, error=last.detail)
            if last.kind == "not_sent":
                self.ledger.mark(key, "FAILED", error=last.detail)
            else:
                self.ledger.mark(key, "UNKNOWN", error=last.detail)
                if name in CREATES and not self.settings.buggy:
                    found = self._lookup(CREATES[name], key)
                    if isinstance(found, dict):
                        return self._confirm(key, name, found, args)
                    if found == "later":
                        return {"kind": "later", "reason": "lookup failed"}
                    self.ledger.mark(key, "FAILED", error=f"{last.detail} (not applied)")
            wait = last.retry_after if last.retry_after is not None else min(2.0 * 2 ** attempt, 30)
            time.sleep(self.settings.real(wait))
        detail = last.detail if last else "no attempt"
        if name in CREATES:
            # Looked up after the last attempt: not applied. Tell the agent; resume later.
            return answer(False, error=f"{detail}; gave up for now after {MAX_ATTEMPTS} attempts")
        return {"kind": "later", "reason": detail}

    @staticmethod
    def _intent(name: str, args: dict[str, Any]) -> dict[str, Any] | None:
        """What a set-values write sets, kept so a cancelled job can settle it by reading."""
        if name == "wp_update_post":
            return {"intent": {k: args[k] for k in ("excerpt", "featured_media", "content")
                               if args.get(k) is not None}}
        if name == "wp_set_seo":
            return {"intent": {k: args.get(k) for k in ("title", "description", "focus_keyword")}}
        return None

    def _send(self, key: str, name: str, args: dict[str, Any], post_id: int | None,
              job_id: str, token: int) -> WPResult:
        if name == "wp_upload_media":
            return self.wp.upload_media(key, args, job_id, token)
        if name == "wp_create_draft":
            return self.wp.create_draft(key, args, job_id, token)
        assert post_id is not None
        if name == "wp_update_post":
            fields = {k: args[k] for k in ("excerpt", "featured_media", "content")
                      if args.get(k) is not None}
            return self.wp.update_post(post_id, fields, job_id, token)
        return self.wp.set_seo(post_id, args, job_id, token)

    def _lookup(self, collection: str, key: str) -> dict[str, Any] | str:
        try:
            found = self.wp.find(collection, key)
        except (LookupFailed, Forbidden):
            return "later"
        return found if found is not None else "absent"

    def _confirm(self, key: str, name: str, body: dict[str, Any], args: dict[str, Any],
                 post_id: int | None = None) -> dict[str, Any]:
        remote = body.get("id") if name in CREATES else post_id
        if name == "wp_upload_media":
            receipt: dict[str, Any] = {"media_id": remote, "source_url": body.get("source_url")}
        elif name == "wp_create_draft":
            receipt = {"post_id": remote, "link": body.get("link")}
        elif name == "wp_update_post":
            receipt = {"post_id": remote, **{k: args[k] for k in ("excerpt", "featured_media")
                                             if args.get(k) is not None}}
        else:
            receipt = {"post_id": remote, "ok": True}
        self.ledger.mark(key, "CONFIRMED", remote_id=remote, receipt=receipt)
        return answer(True, receipt)

    def _read(self, job_id: str, version: str, post_id: int) -> dict[str, Any]:
        try:
            body = self.wp.read_post(post_id)
        except Forbidden as exc:
            return stop(exc.reason)
        except LookupFailed as exc:
            if "401" in str(exc):
                return stop("refused")
            return {"kind": "later", "reason": str(exc)}
        title = body.get("title")
        receipt = {"post_id": post_id, "status": body.get("status"),
                   "featured_media": body.get("featured_media"),
                   "title": title.get("raw") if isinstance(title, dict) else title}
        key = op_key(job_id, version, "article:read")
        self.ledger.prepare(key, job_id, version, "article:read", "wp_get_post", "read")
        self.ledger.mark(key, "CONFIRMED", remote_id=post_id, receipt={"post_id": post_id})
        return answer(True, receipt)
