"""Pure judgements over the ledger: progress, phase, the recovery summary, the final outcome.

Nothing here performs I/O. The outcome is classified from what the ledger (and the refusals)
show, never from how the run went or from the agent's words.
"""

from __future__ import annotations

import json
from typing import Any

from ledger import Op

ARTICLE_PHASES = ["accepted", "session_started", "media_uploaded", "draft_created",
                  "post_updated", "seo_set", "awaiting_approval", "published"]
CODING_PHASES = ["accepted", "session_started", "delivered"]
ROLE_TOOL = {"article": "wp_create_draft", "article:update": "wp_update_post",
             "article:seo": "wp_set_seo"}


def image_count(job: dict[str, Any]) -> int:
    value = (job.get("input") or {}).get("images", 3)
    try:
        return int(value)
    except (TypeError, ValueError):
        return 3


def confirmed(ops: list[Op]) -> dict[str, Op]:
    return {op.role: op for op in ops if op.state == "CONFIRMED"}


def required_roles(job: dict[str, Any]) -> list[str]:
    n = image_count(job)
    return [f"image:{i}" for i in range(1, n + 1)] + ["article", "article:update", "article:seo"]


def article_done(job: dict[str, Any], ops: list[Op]) -> bool:
    done = confirmed(ops)
    return all(role in done for role in required_roles(job))


def remote(job: dict[str, Any], ops: list[Op]) -> dict[str, Any]:
    """The ids the checkpoint may claim: only what the site confirmed, for this version."""
    done = confirmed(ops)
    out: dict[str, Any] = {}
    article = done.get("article")
    if article is not None and article.remote_id:
        out["wordpress_post_id"] = int(article.remote_id)
    media = [done[f"image:{i}"] for i in range(1, 11) if f"image:{i}" in done]
    out["media_ids"] = [int(op.remote_id) for op in media if op.remote_id]
    return out


def article_phase(job: dict[str, Any], ops: list[Op], stored: str, has_session: bool) -> str:
    """The furthest phase whose evidence holds (the ledger only grows, so it never goes back)."""
    done = confirmed(ops)
    n = image_count(job)
    evidence = {
        "accepted": True,
        "session_started": has_session,
        "media_uploaded": has_session and all(f"image:{i}" in done for i in range(1, n + 1)),
        "draft_created": "article" in done,
        "post_updated": "article" in done and "article:update" in done,
        "seo_set": "article" in done and "article:seo" in done,
        "awaiting_approval": stored in ("awaiting_approval", "published"),
        "published": stored == "published",
    }
    best = "accepted"
    for phase in ARTICLE_PHASES:
        if evidence[phase]:
            best = phase
    return best


def recovery_summary(ops: list[Op]) -> str:
    """The contract's RECOVERY SUMMARY message: what is done, with its receipts."""
    done: dict[str, dict[str, Any]] = {}
    for role, op in confirmed(ops).items():
        if not op.remote_id:
            continue
        key = "media_id" if role.startswith("image:") else "post_id"
        done[role] = {key: int(op.remote_id)}
    return "RECOVERY SUMMARY\n" + json.dumps({"done": done}, sort_keys=True)


def blocker(job: dict[str, Any], ops: list[Op], allowed: list[str], note: str | None,
            ) -> str | None:
    """Why the article cannot be finished by resuming, if anything definite says so."""
    if note and note.startswith("blocked:"):
        return note
    done = confirmed(ops)
    for op in ops:
        if op.state == "FAILED" and op.definite and op.role not in done:
            return f"{op.role}: {op.error}"
    for role, tool in ROLE_TOOL.items():
        if role not in done and tool not in allowed:
            return f"the tool {tool} is not allowed"
    if any(r.startswith("image:") and r not in done for r in required_roles(job)) \
            and "wp_upload_media" not in allowed:
        return "the tool wp_upload_media is not allowed"
    return None


def final_outcome(workload: str, job: dict[str, Any], ops: list[Op], phase: str,
                  delivered: bool, refused: set[str]) -> str:
    """What the world shows, as far as the ledger and the refusals tell."""
    if workload == "coding":
        if delivered:
            return "completed"
        return "needs_human" if "openai" in refused else "failed"
    if phase == "published":
        return "completed"
    if article_done(job, ops):
        return "needs_human"
    return "needs_human" if refused else "failed"
