"""Settling a stopped version's writes by reading only (after a cancellation or a new version).

From the cancellation on, a job may read anything and cancel its session's turn, nothing else.
Every write still SENT, UNKNOWN or PREPARED is settled from what the site shows: a create by
its operation key, an update or a publish by reading the post back; the SEO call, which cannot
be read back through REST, stays UNKNOWN (as the contract says). Then the session's turn is
cancelled (allowed, and harmless when no turn runs).
"""

from __future__ import annotations

from typing import Any

from gate import Forbidden
from ledger import Op
from runtime import rt
from sessions import ApiFailure
from wordpress import LookupFailed

CREATES = {"wp_upload_media": "media", "wp_create_draft": "posts"}


def _raw(value: Any) -> Any:
    return value.get("raw", value.get("rendered")) if isinstance(value, dict) else value


def _article_id(ops: list[Op]) -> int | None:
    for op in ops:
        if op.role == "article" and op.state == "CONFIRMED" and op.remote_id:
            return int(op.remote_id)
    return None


def _settle_setter(op: Op, post_id: int | None) -> None:
    r = rt()
    intent = (op.receipt or {}).get("intent") if op.receipt else None
    if post_id is None:
        r.ledger.mark(op.op_key, "FAILED", error="no article to write to")
        return
    post = r.wp.read_post(post_id)
    if op.kind == "wp_publish":
        applied = post.get("status") == "publish"
    elif op.kind == "wp_update_post" and isinstance(intent, dict):
        applied = all(_raw(post.get(k)) == v or str(_raw(post.get(k))) == str(v)
                      for k, v in intent.items())
    elif op.kind == "wp_set_seo" and isinstance(intent, dict):
        meta = post.get("meta")
        if not isinstance(meta, dict) or "rank_math_title" not in meta:
            # Rank Math's values cannot be read back through REST, and after a cancellation
            # the call may not be sent again: it stays as it was (UNKNOWN), honestly.
            r.ledger.mark(op.op_key, "UNKNOWN", error="SEO cannot be read back")
            return
        applied = meta.get("rank_math_title") == intent.get("title")
    else:
        applied = False
    if applied:
        r.ledger.mark(op.op_key, "CONFIRMED", remote_id=post_id,
                      receipt={"post_id": post_id, "settled": "read back"})
    else:
        r.ledger.mark(op.op_key, "FAILED", error="not applied (read back)")


def settle_version(job_id: str, version: str) -> dict[str, Any]:
    r = rt()
    ops = r.ledger.for_version(job_id, version)
    try:
        for op in ops:
            if op.state not in ("SENT", "UNKNOWN", "PREPARED") or op.kind == "wp_get_post":
                continue
            if op.state == "PREPARED":
                r.ledger.mark(op.op_key, "FAILED", error="never sent")
            elif op.kind in CREATES:
                found = r.wp.find(CREATES[op.kind], op.op_key)
                if found is None:
                    r.ledger.mark(op.op_key, "FAILED", error="not applied (looked up by key)")
                else:
                    receipt = ({"media_id": found.get("id"), "source_url": found.get("source_url")}
                               if op.kind == "wp_upload_media" else
                               {"post_id": found.get("id"), "link": found.get("link")})
                    r.ledger.mark(op.op_key, "CONFIRMED", remote_id=found.get("id"),
                                  receipt=receipt)
            else:
                _settle_setter(op, _article_id(r.ledger.for_version(job_id, version)))
    except (LookupFailed, Forbidden) as exc:
        if isinstance(exc, Forbidden) or "401" in str(exc):
            return {"state": "settled", "note": f"cannot read: {exc}"}
        return {"state": "retry", "reason": str(exc)}
    row = r.store.version(job_id, version)
    if row is not None and row.session_id:
        event = {"type": "agent.session.input.cancel"}
        for _ in range(3):
            try:
                r.sessions.send(row.session_id, [event], f"cancel-{version}")
                break
            except (ApiFailure, Forbidden):
                continue
    return {"state": "settled"}
