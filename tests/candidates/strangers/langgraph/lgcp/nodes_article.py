"""The article workload's nodes: perform a WordPress tool call; look for an approval; publish.

`perform_article` turns the agent's pending call into a business action (its role), performs it
through `effects.perform_write` and leaves the tool result to send in the state (`reply`).
`approval` and `publish` run once every write of the article is confirmed: the job then waits for
a human, and is published only under an approval in force now, for this version, this post and
its content as it is now, looked up again before every attempt.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import httpx

from . import httpio, tools
from .approvals import in_force
from .deps import APPROVAL_POLL_S, MAX_ATTEMPTS, Deps, backoff, confirmed
from .effects import Effect, Found, lookup_response, perform_write, safe_lookup
from .leases import NotOurs
from .ledger import Operation
from .wordpress import raw


def tool_result(call: dict[str, Any], ok: bool, payload: dict[str, Any] | str) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "agent.session.input.tool_result", "turn_id": call["turn_id"],
                             "call_id": call["call_id"], "success": ok}
    if ok:
        event["output"] = json.dumps(payload)
    else:
        event["error"] = str(payload)
    return event


def _post_item_result(item: dict[str, Any]) -> dict[str, Any]:
    return {"post_id": item.get("id"), "link": item.get("link", "")}


def _media_item_result(item: dict[str, Any]) -> dict[str, Any]:
    return {"media_id": item.get("id"), "source_url": item.get("source_url", "")}


def _found_by_key(deps: Deps, collection: str, key: str) -> Found:
    failed, item = deps.wp.find_by_key(collection, key)
    if failed is not None:
        return lookup_response(deps, failed)
    if item is None:
        return Found("absent")
    result = _media_item_result(item) if collection == "media" else _post_item_result(item)
    return Found("found", item.get("id"), result)


def _read_post(deps: Deps, post_id: int) -> tuple[Found, dict[str, Any] | None]:
    resp = deps.wp.get_post(post_id)
    if resp.status_code != 200:
        return lookup_response(deps, resp), None
    body = httpio.json_body(resp)
    return Found("found", post_id), body if isinstance(body, dict) else {}


def _update_applied(deps: Deps, post_id: int, fields: dict[str, Any]) -> Found:
    """An update carries no key: it is applied when the post shows every field it sets."""
    found, post = _read_post(deps, post_id)
    if post is None:
        return found
    for name, value in fields.items():
        if name == "status":
            if post.get("status") not in ((value,) if value != "publish" else ("publish", "future")):
                return Found("absent")
        elif str(raw(post.get(name))) != str(value):
            return Found("absent")
    return Found("found", post_id, {"post_id": post_id, **fields})


def _as_int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def perform_article(deps: Deps, job: dict[str, Any], version: str, call: dict[str, Any],
                    ops: dict[str, Operation]) -> tuple[Effect, str]:
    """Perform one call of the article's agent; returns its effect and the call's role."""
    job_id, name, args = str(job["job_id"]), call["name"], tools.arguments(call.get("arguments"))
    role = tools.role_of(name, args, {})
    key = tools.operation_key(job_id, version, role)
    rhash = tools.request_hash(name, args)
    article = confirmed(ops, "article")
    post_id = _as_int(args.get("post_id"))

    def write(kind: str, send: Any, parse: Any, lookup: Any, request: Any = None) -> Effect:
        return perform_write(deps, job_id=job_id, version=version, role=role, kind=kind, tool=name,
                             rhash=rhash, send=send, parse=parse, lookup=lookup, request=request)

    if name in ("wp_update_post", "wp_set_seo", "wp_get_post"):
        if article is None or post_id is None or str(post_id) != article.remote_id:
            return Effect("definite", error=f"post {args.get('post_id')} is not this job's article"), role
    if name == "wp_upload_media":
        return write("wp_upload_media",
                     lambda token: deps.wp.upload_media(args, key, job_id, token),
                     lambda resp: _parsed(resp, _media_item_result),
                     lambda: _found_by_key(deps, "media", key)), role
    if name == "wp_create_draft":
        return write("wp_create_draft",
                     lambda token: deps.wp.create_draft(args, key, job_id, token),
                     lambda resp: _parsed(resp, _post_item_result),
                     lambda: _found_by_key(deps, "posts", key)), role
    if name == "wp_update_post":
        assert post_id is not None
        fields = {k: args[k] for k in ("excerpt", "featured_media", "content") if args.get(k) is not None}
        featured = _as_int(fields.get("featured_media"))
        if featured is not None and str(featured) not in {op.remote_id for r, op in ops.items()
                                                          if r.startswith("image:") and op.state == "CONFIRMED"}:
            return Effect("definite", error=f"medium {featured} is not one of this job's images"), role
        return write("wp_update_post",
                     lambda token: deps.wp.update_post(post_id, fields, job_id, token),
                     lambda resp: (post_id, {"post_id": post_id, **fields}),
                     lambda: _update_applied(deps, post_id, fields), request=fields), role
    if name == "wp_set_seo":
        assert post_id is not None
        return write("wp_set_seo",
                     lambda token: deps.wp.set_seo(post_id, args, job_id, token),
                     lambda resp: (post_id, {"post_id": post_id, "ok": True}),
                     None), role
    if name == "wp_get_post":
        assert post_id is not None
        return _get_post(deps, job_id, version, role, key, rhash, post_id), role
    return Effect("definite", error=f"tool {name} is not one this control plane performs"), role


def _parsed(resp: httpx.Response, shape: Any) -> tuple[Any, dict[str, Any]]:
    body = httpio.json_body(resp)
    item = body if isinstance(body, dict) else {}
    return item.get("id"), shape(item)


def _get_post(deps: Deps, job_id: str, version: str, role: str, key: str, rhash: str,
              post_id: int) -> Effect:
    """A read: no side effect, sent again freely; its receipt is kept for the recovery summary."""
    try:
        found, post = _read_post(deps, post_id)
    except httpx.HTTPError as exc:
        return Effect("pending", error=str(exc))
    if post is None:
        return Effect("revoked" if found.status == "revoked" else "pending", error=found.error)
    result = {"post_id": post_id, "status": post.get("status"), "link": post.get("link", ""),
              "featured_media": post.get("featured_media"), "title": raw(post.get("title"))}
    deps.ledger.prepare(key, job_id, version, role, "wp_get_post", rhash)
    deps.ledger.confirm(key, post_id, result)
    return Effect("ok", result)


# -- approvals and publishing -----------------------------------------------------------------

def approval_for(deps: Deps, job_id: str, version: str, post_id: int) -> tuple[str, dict[str, Any] | None]:
    """("ok", the approval in force whose digest matches the post now) / ("none"|"revoked"|"error", None)."""
    try:
        refused, approvals = deps.approvals.active(job_id, version)
        if refused is not None:
            failure = httpio.classify_status(refused.status_code, httpio.json_body(refused), refused.headers)
            if failure.kind == "revoked":
                deps.store.revoke("approvals", deps.clock.now(), failure.describe())
                return "revoked", None
            return "error", None
        candidates = [a for a in approvals if in_force(a, job_id, version, post_id, deps.clock.unix())]
        if not candidates:
            return "none", None
        found, post = _read_post(deps, post_id)
        if post is None:
            return ("revoked" if found.status == "revoked" else "error"), None
        digest = hashlib.sha256(str(raw(post.get("content")) or "").encode("utf-8")).hexdigest()
        for approval in candidates:
            if approval.get("content_sha256") == digest:
                return "ok", approval
        return "none", None
    except httpx.HTTPError:
        return "error", None


def publish(deps: Deps, job_id: str, version: str, post_id: int) -> str:
    """Publish under an approval checked before every attempt: ok | none | blocked | revoked | pending."""
    key = tools.operation_key(job_id, version, "article:publish")
    deps.ledger.prepare(key, job_id, version, "article:publish", "wp_publish",
                        tools.request_hash("wp_publish", {"post_id": post_id}))
    op = deps.ledger.get(key)
    if op is not None and op.state == "CONFIRMED":
        return "ok"
    if op is not None and op.state in ("SENT", "UNKNOWN"):
        found = safe_lookup(deps, lambda: _update_applied(deps, post_id, {"status": "publish"}))
        if found.status == "found":
            deps.ledger.confirm(key, post_id, {"post_id": post_id, "status": "publish"})
            return "ok"
        if found.status == "absent":
            deps.ledger.failed(key, "not applied (read back: not published)", definite=False)
    for attempt in range(MAX_ATTEMPTS):
        verdict, approval = approval_for(deps, job_id, version, post_id)
        if approval is None:
            return verdict if verdict in ("none", "revoked") else "pending"
        try:
            with deps.leases.write(job_id, version, "wp_publish") as token:
                deps.ledger.sent(key)
                try:
                    resp: httpx.Response | None = deps.wp.publish(post_id, job_id, token)
                    failure = None
                except httpx.HTTPError as exc:
                    resp, failure = None, httpio.classify_exception(exc)
        except NotOurs:
            return "blocked"
        if resp is not None and resp.status_code < 300:
            deps.ledger.confirm(key, post_id, {"post_id": post_id, "status": "publish"})
            return "ok"
        if resp is not None:
            failure = httpio.classify_status(resp.status_code, httpio.json_body(resp), resp.headers)
        assert failure is not None
        if failure.kind == "revoked":
            deps.store.revoke("wordpress", deps.clock.now(), failure.describe())
            deps.ledger.failed(key, failure.describe(), definite=True)
            return "revoked"
        if failure.kind == "definite":
            deps.ledger.failed(key, failure.describe(), definite=False)
            return "none"
        deps.ledger.unknown(key, failure.describe())
        if not deps.pause(job_id, backoff(attempt, failure.retry_after)):
            return "blocked"
        found = safe_lookup(deps, lambda: _update_applied(deps, post_id, {"status": "publish"}))
        if found.status == "found":
            deps.ledger.confirm(key, post_id, {"post_id": post_id, "status": "publish"})
            return "ok"
        if found.status == "absent":  # read back: not published, so that attempt did nothing
            deps.ledger.failed(key, "not applied (read back: not published)", definite=False)
    return "pending"


def settle_lookup(deps: Deps, op: Operation, article_id: str | None) -> Any:
    """How to read an operation in doubt back (None: it cannot be read back)."""
    if op.kind == "wp_upload_media":
        return lambda: _found_by_key(deps, "media", op.key)
    if op.kind == "wp_create_draft":
        return lambda: _found_by_key(deps, "posts", op.key)
    if op.kind == "wp_publish" and article_id:
        return lambda: _update_applied(deps, int(article_id), {"status": "publish"})
    if op.kind == "wp_update_post" and article_id and isinstance(op.request, dict):
        fields = dict(op.request)
        return lambda: _update_applied(deps, int(article_id), fields)
    return None


__all__ = ["perform_article", "approval_for", "publish", "settle_lookup", "tool_result", "APPROVAL_POLL_S"]
