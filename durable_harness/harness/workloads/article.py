"""The article workload: the n8n -> WordPress job, as the harness sees it.

It builds the job a scenario submits, and maps the fakes' ground truth back to business roles:
a post is the article of (job, version) when its content carries the brain's watermark
``<!-- durable-harness job=J version=V role=article -->``; a media item is image n of (job,
version) when its bytes are the ones the brain generated (the sessions fake registers them).

The world's outcome: the job is done when its article exists with every image uploaded, image 1
as its featured image and its SEO set; then it awaits publish approval (``needs_human``), or is
``completed`` once published. Anything less is ``failed``: the work was not done; unless the user
cancelled (``cancelled``), or an operator revoked the job's credentials before it was done
(``needs_human``: a human must act). Conditions triggers may name: ``article_drafted``,
``article_finished``.

It deliberately does not script the agent (that is the brain, in ``durable_harness.fakes.openai_agents``) nor
judge (checkers do).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Mapping
from typing import Any

from durable_harness.harness.workloads._registry import (
    CallTruth, Effect, Outcome, Workload, cancelled, register_workload, waiting_for_credentials,
)

__all__ = ["ARTICLE_TOOLS", "PHASES", "WORKLOAD", "build_job"]

ARTICLE_TOOLS = (
    "wp_upload_media", "wp_create_draft", "wp_update_post", "wp_set_seo", "wp_get_post",
    "wp_append_block", "wp_publish",
)
PHASES = ("accepted", "session_started", "media_uploaded", "draft_created", "post_updated", "seo_set", "verified",
          "awaiting_approval", "published")
_NEEDS_ARTICLE = PHASES.index("draft_created")

_WATERMARK = re.compile(r"<!-- durable-harness job=(\S+) version=(\S+) role=(\S+) -->")

DEFAULT_INPUT = {
    "topic": "Recovering long agent jobs without duplicate side effects",
    "title": "Read first, reconcile, then continue",
    "focus_keyword": "durable agent sessions",
    "images": 3,
    "preamble_items": 0,
}

PARAMS_SCHEMA = {
    "topic": {"type": "string", "minLength": 1},
    "title": {"type": "string", "minLength": 1},
    "focus_keyword": {"type": "string", "minLength": 1},
    "images": {"type": "integer", "minimum": 0, "maximum": 10},
    "preamble_items": {"type": "integer", "minimum": 0, "maximum": 1000},
    "research_subagent": {"type": "boolean"},
    "overclaim": {"type": "boolean", "description": "the agent ends a failed turn saying the draft is ready"},
    "retry_step": {"type": "string", "pattern": "^(image:[0-9]+|article|article:update|article:seo|article:read)$",
                   "description": "once this role's call succeeded, the platform retries the step: the same call again"},
}

Json = Mapping[str, Any]


def build_job(job_id: str, task_version: str, params: Json) -> dict[str, Any]:
    """The Job a scenario submits (contract shape)."""
    return {
        "job_id": job_id,
        "task_version": task_version,
        "tenant": "acme-editorial",
        "workload": "article",
        "input": {**DEFAULT_INPUT, **params},
        "allowed_tools": list(ARTICLE_TOOLS),
        "budget": {"max_resume_attempts": 5, "max_tool_calls": 40},
    }


def roles(job: Json) -> tuple[str, ...]:
    images = int((job.get("input") or {}).get("images", 0))
    return (*(f"image:{n}" for n in range(1, images + 1)), "article", "article:update", "article:seo", "article:read")


def effects(truth: Json) -> list[Effect]:
    """Every post and upload ground truth shows that belongs to some job's role."""
    wp, oa = truth.get("wordpress") or {}, truth.get("openai") or {}
    out = []
    for post in wp.get("posts", []):
        match = _WATERMARK.search(str(post.get("content", "")))
        if match:
            out.append(_effect("post", "/wp/v2/posts", match.group(1), match.group(2), match.group(3), post))
    payloads = oa.get("payloads") or {}
    for item in wp.get("media", []):
        owner = payloads.get(item.get("sha256"))
        if owner and str(owner.get("role", "")).startswith("image:"):
            out.append(_effect("media", "/wp/v2/media", str(owner["job_id"]), str(owner["task_version"]),
                               str(owner["role"]), item))
    return out


def _effect(kind: str, route: str, job_id: str, version: str, role: str, record: Json) -> Effect:
    deleted = record.get("deleted_at")
    if deleted is None and record.get("trashed_at") is not None:
        deleted = record.get("trashed_at")
    return Effect(kind=kind, service="wordpress", route=route, job_id=job_id, task_version=version, role=role,
                  id=int(record["id"]), created_at=float(record.get("created_at") or 0.0),
                  deleted_at=None if deleted is None else float(deleted),
                  operation_key=(record.get("meta") or {}).get("operation_key"), record=record)


def outcome(truth: Json, job: Json) -> Outcome:
    """What the world shows. A cancellation the candidate acknowledged makes the job ``cancelled``
    (whatever was done before it stays done); otherwise the work decides, and unfinished work whose
    credentials an operator revoked waits for a human (``needs_human``), never done around them."""
    stopped = cancelled(truth, job)
    if stopped is not None:
        return stopped
    return waiting_for_credentials(work_outcome(truth, job), truth, job)


def work_outcome(truth: Json, job: Json) -> Outcome:
    """What the work shows: the best of the job's live articles decides (a duplicate is counted by
    its own checker, not here)."""
    mine = WORKLOAD.job_effects(truth, job)
    live = [e for e in mine if e.deleted_at is None]
    articles = sorted((e for e in live if e.kind == "post" and e.role == "article"), key=lambda e: e.id)
    if not articles:
        return Outcome("failed", "no article of this job exists: the work was not done")
    judged = [(article, _unfinished(article, mine, live, job)) for article in articles]
    finished = [a for a, missing in judged if not missing]
    if not finished:
        article, missing = judged[0]
        return Outcome("failed", f"article {article.id} is unfinished: " + "; ".join(missing))
    published = [a for a in finished if a.record.get("status") == "publish"]
    if published:
        return Outcome("completed", f"article {published[0].id} is finished and published")
    return Outcome("needs_human", f"article {finished[0].id} is finished and awaits publish approval "
                                  f"(status {finished[0].record.get('status')!r})")


def _unfinished(article: Effect, mine: list[Effect], live: list[Effect], job: Json) -> list[str]:
    post = article.record
    images = int((job.get("input") or {}).get("images", 0))
    uploaded = {e.role for e in live if e.kind == "media"}
    missing = [f"image:{n} was never uploaded" for n in range(1, images + 1) if f"image:{n}" not in uploaded]
    image_1 = {e.id for e in mine if e.kind == "media" and e.role == "image:1"}
    if images and post.get("featured_media") not in image_1:
        missing.append(f"its featured image is {post.get('featured_media')!r}, not image:1")
    if not (post.get("rank_math") or {}).get("rank_math_focus_keyword"):
        missing.append("its SEO was never set")
    return missing


def checkpoint_problems(checkpoint: Json, truth: Json, job: Json, entry: Any, history: Any) -> list[str]:
    """Why a checkpoint reported at ``entry`` is not backed by the world as it was then."""
    t = float(entry.time_s)
    mine = WORKLOAD.job_effects(truth, job)
    articles = [e for e in mine if e.kind == "post" and e.role == "article"]
    uploads = [e for e in mine if e.kind == "media"]
    images = int((job.get("input") or {}).get("images", 0))
    remote = checkpoint.get("remote") or {}
    why: list[str] = []
    post_id = _int(remote.get("wordpress_post_id"))
    if remote.get("wordpress_post_id") is not None and not any(e.id == post_id and e.alive_at(t) for e in articles):
        why.append(f"post {remote.get('wordpress_post_id')!r} is not this job's article at t={t:g}s")
    alive_media = {e.id for e in uploads if e.alive_at(t)}
    for mid in remote.get("media_ids") or []:
        if _int(mid) not in alive_media:
            why.append(f"media {mid!r} is not an upload of this job's images at t={t:g}s")
    phase = checkpoint.get("phase")
    if phase in PHASES:
        index = PHASES.index(phase)
        if index >= _NEEDS_ARTICLE and not any(e.alive_at(t) for e in articles):
            why.append(f"phase {phase!r} claimed, but no article of this job exists at t={t:g}s")
        if phase in ("awaiting_approval", "published"):
            roles_now = {e.role for e in uploads if e.alive_at(t)}
            missing = [f"image:{n}" for n in range(1, images + 1) if f"image:{n}" not in roles_now]
            if missing:
                why.append(f"phase {phase!r} claimed, but {', '.join(missing)} were never uploaded (by t={t:g}s)")
        if phase == "published" and not any(
                e.record.get("published_at") is not None and float(e.record["published_at"]) <= t for e in articles):
            why.append("phase 'published' claimed, but the article was never published")
    if checkpoint.get("approval_status") == "approved" and not _approved_by(truth, job, t):
        why.append(f"approval_status 'approved' claimed, but no approval for this job version was in force at t={t:g}s")
    return why


def _approved_by(truth: Json, job: Json, t: float) -> bool:
    """Whether some publish approval for the job's version was granted by ``t`` (revoked or expired
    later does not undo a claim made while it stood)."""
    return any(a.get("job_id") == str(job["job_id"]) and str(a.get("task_version")) == str(job["task_version"])
               and float(a.get("granted_at_s", 0.0)) <= t for a in (truth.get("approvals") or {}).get("approvals", []))


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _finished(truth: Json, job: Json, _arg: str | None) -> bool:
    return work_outcome(truth, job).outcome in ("needs_human", "completed")


def _drafted(truth: Json, job: Json, _arg: str | None) -> bool:
    return any(e.kind == "post" and e.role == "article" and e.deleted_at is None for e in WORKLOAD.job_effects(truth, job))


_ROLE_OF_TOOL = {"wp_create_draft": "article", "wp_update_post": "article:update", "wp_set_seo": "article:seo",
                 "wp_get_post": "article:read"}
_IMAGE_NUMBER = re.compile(r"-(\d+)\.[A-Za-z0-9]+$")


def call_truth(name: str, arguments: Json) -> CallTruth | None:
    """A call's role from its tool and arguments: an upload is image N of its file name
    (``<slug>-N.png``), and its bytes (``content_base64``) are that image's payload; a draft carries
    the job's watermark in its content."""
    if name == "wp_upload_media":
        match = _IMAGE_NUMBER.search(str(arguments.get("filename") or ""))
        if match is None:
            return None
        try:
            data = base64.b64decode(str(arguments.get("content_base64") or ""), validate=True)
        except (binascii.Error, ValueError):
            data = b""
        return CallTruth(f"image:{int(match.group(1))}", (hashlib.sha256(data).hexdigest(),) if data else ())
    role = _ROLE_OF_TOOL.get(name)
    if role is None:
        return None
    marks = tuple(m.group(0) for m in _WATERMARK.finditer(str(arguments.get("content") or "")))
    return CallTruth(role, (), marks)


def _brain(jobs: Mapping[tuple[str, str], Mapping[str, Any]], seed: int) -> Any:
    """The scripted agent (imported when a run builds the sessions fake, not by list/validate)."""
    from durable_harness.fakes.openai_agents.brains.article import ArticleBrain

    return ArticleBrain.factory(jobs, seed)


WORKLOAD = register_workload(Workload(
    name="article", params_schema=PARAMS_SCHEMA, build_job=build_job, brain=_brain, roles=roles,
    phases=PHASES, effects=effects, outcome=outcome, checkpoint_problems=checkpoint_problems,
    creates={"wp_create_draft": "post", "wp_upload_media": "media"},
    conditions={"article_finished": _finished, "article_drafted": _drafted},
    clean_outcome="needs_human",  # the article is finished and awaits publish approval
    call_truth=call_truth,
))
