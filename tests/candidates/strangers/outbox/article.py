"""The article workload: the agent's tools as business actions, the finish line, publishing.

Each tool call becomes an :class:`effects.Action` keyed by its *role* (``image:2``, ``article``,
``article:update``, ``article:seo``, ``article:read``), never by its call id, so an action asked
again under a new call id is answered with the receipt the ledger already holds. Calls that would
touch anything but this job's own draft and images are refused.

The job is finished when the ledger holds every needed role CONFIRMED and a read of the post shows
it (not trashed, image 1 as its featured image): it then awaits approval. Publishing happens only
under an approval in force *now* for this job, version, post and content digest, looked up again
right before every attempt (it is part of the publish's guard).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Callable

from .approvals import Approvals
from .effects import Action, Effects
from .jobs import Job
from .outbox import OPEN_STATES, Outbox
from .wordpress import WordPress

STR = {"type": "string"}
INT = {"type": "integer"}
TOOLS: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "wp_upload_media": ("Upload one image to the WordPress media library.",
                        {"filename": STR, "content_base64": STR, "mime_type": STR, "alt_text": STR},
                        ["filename", "content_base64", "mime_type", "alt_text"]),
    "wp_create_draft": ("Create the article as a WordPress draft.",
                        {"title": STR, "content": STR, "excerpt": STR, "slug": STR},
                        ["title", "content"]),
    "wp_update_post": ("Update fields of the article's draft.",
                       {"post_id": INT, "excerpt": STR, "featured_media": INT, "content": STR},
                       ["post_id"]),
    "wp_set_seo": ("Set the article's Rank Math SEO title, description and focus keyword.",
                   {"post_id": INT, "title": STR, "description": STR, "focus_keyword": STR},
                   ["post_id", "title", "description", "focus_keyword"]),
    "wp_get_post": ("Read the article's draft back.", {"post_id": INT}, ["post_id"]),
}
ROLE_TOOL = {"article": "wp_create_draft", "article:update": "wp_update_post",
             "article:seo": "wp_set_seo"}
IMAGE_NAME = re.compile(r"-(\d+)\.[A-Za-z0-9]+$")


def tool_definitions(allowed: list[str]) -> list[dict[str, Any]]:
    return [{"type": "function", "name": name, "description": desc,
             "parameters": {"type": "object", "properties": props, "required": required}}
            for name, (desc, props, required) in TOOLS.items() if name in allowed]


def image_count(job: Job) -> int:
    return int(job.inputs.get("images", 3) if job.inputs.get("images") is not None else 3)


def needed_roles(job: Job) -> list[str]:
    return [f"image:{i}" for i in range(1, image_count(job) + 1)] + list(ROLE_TOOL)


class Article:
    """Tool calls, completion and publication of article jobs."""

    def __init__(self, effects: Effects, outbox: Outbox, wp: WordPress, approvals: Approvals,
                 clock: Any) -> None:
        self.effects = effects
        self.outbox = outbox
        self.wp = wp
        self.approvals = approvals
        self.clock = clock

    # --- the ledger, by role ----------------------------------------------------------------------
    def rows(self, job: Job) -> dict[str, dict[str, Any]]:
        return {r["role"]: r for r in self.outbox.for_job(job.job_id, job.version)}

    def confirmed(self, job: Job, role: str) -> dict[str, Any] | None:
        row = self.rows(job).get(role)
        return Outbox.receipt(row) if row and row["state"] == "CONFIRMED" else None

    def post_id(self, job: Job) -> int | None:
        receipt = self.confirmed(job, "article")
        return int(receipt["post_id"]) if receipt else None

    def media_ids(self, job: Job) -> list[int]:
        rows = self.rows(job)
        found = [(r["role"], Outbox.receipt(r)) for r in rows.values()
                 if r["role"].startswith("image:") and r["state"] == "CONFIRMED"]
        return [int(rc["media_id"]) for _, rc in sorted(found, key=lambda x: _image_index(x[0]))]

    def all_done(self, job: Job) -> bool:
        rows = self.rows(job)
        return all(rows.get(r, {}).get("state") == "CONFIRMED" for r in needed_roles(job))

    def blocked(self, job: Job) -> str | None:
        """Why the unfinished work cannot be finished (a definite refusal, a tool not allowed)."""
        rows = self.rows(job)
        for role in needed_roles(job):
            row = rows.get(role)
            if row and row["state"] == "CONFIRMED":
                continue
            tool = "wp_upload_media" if role.startswith("image:") else ROLE_TOOL[role]
            if tool not in job.allowed_tools:
                return f"{role} needs tool {tool}, which the job does not allow"
            if row and row["state"] == "FAILED" and row["definite"]:
                return f"{role} was refused: {row['error']}"
        return None

    def recovery_summary(self, job: Job) -> str:
        done: dict[str, Any] = {}
        for role, row in sorted(self.rows(job).items()):
            if row["state"] != "CONFIRMED":
                continue
            receipt = Outbox.receipt(row)
            if role.startswith("image:"):
                done[role] = {"media_id": receipt["media_id"]}
            elif role in ("article", "article:update", "article:seo", "article:read"):
                done[role] = {"post_id": receipt["post_id"]}
        return "RECOVERY SUMMARY\n" + json.dumps({"done": done}, sort_keys=True)

    # --- tool calls -------------------------------------------------------------------------------
    def action_for(self, job: Job, name: str, args: dict[str, Any]) -> Action | str:
        """The business action a call asks for, or why it is refused."""
        if name not in TOOLS:
            return f"unknown tool {name!r}"
        if name == "wp_upload_media":
            match = IMAGE_NAME.search(str(args.get("filename") or ""))
            digest = hashlib.sha256(str(args.get("content_base64") or "").encode()).hexdigest()
            role = f"image:{int(match.group(1))}" if match else f"media:{digest[:16]}"
            request = {k: args.get(k) for k in ("filename", "content_base64", "mime_type", "alt_text")}
            return Action(job.job_id, job.version, role, name, request)
        if name == "wp_create_draft":
            request = {k: args[k] for k in ("title", "content", "excerpt", "slug") if k in args}
            return Action(job.job_id, job.version, "article", name, request)
        post_id = self.post_id(job)
        try:
            asked = int(args.get("post_id"))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return "post_id must be an integer"
        if post_id is None or asked != post_id:
            return f"post {asked} is not this job's article"
        if name == "wp_update_post":
            request = {k: args[k] for k in ("excerpt", "featured_media", "content") if k in args}
            if "featured_media" in request and int(request["featured_media"] or 0) not in self.media_ids(job):
                return f"medium {request['featured_media']} is not one of this job's images"
            request["post_id"] = asked
            return Action(job.job_id, job.version, "article:update", name, request)
        if name == "wp_set_seo":
            request = {k: args.get(k, "") for k in ("title", "description", "focus_keyword")}
            request["post_id"] = asked
            return Action(job.job_id, job.version, "article:seo", name, request)
        return Action(job.job_id, job.version, "article:read", name, {"post_id": asked}, is_write=False)

    # --- the finish line ----------------------------------------------------------------------------
    def verify(self, job: Job) -> str:
        """Read the post back: ``ok``, ``retry`` (the read failed), ``revoked`` or why not."""
        post_id = self.post_id(job)
        if post_id is None:
            return "no article"
        answer = self.wp.get_post(post_id)
        if answer.kind == "revoked":
            return "revoked"
        if not answer.ok or not isinstance(answer.body, dict):
            return "retry"
        if answer.body.get("status") == "trash":
            return "the article was trashed"
        media = self.media_ids(job)
        if media and int(answer.body.get("featured_media") or 0) != media[0]:
            return "image 1 is not the featured image"
        return "ok"

    def publish_guard(self, job: Job, base: Callable[[], str | None]) -> Callable[[], str | None]:
        """The publish's authority, checked right before each attempt: the base guard, and an
        approval in force now for the post's content as it is now."""
        def guard() -> str | None:
            refusal = base()
            if refusal:
                return refusal
            if "wp_publish" not in job.allowed_tools:
                return "wp_publish is not allowed"
            post_id = self.post_id(job)
            if post_id is None:
                return "no article"
            answer, candidates = self.approvals.active(job_id=job.job_id, version=job.version)
            if not candidates:
                return f"no approval in force ({answer.describe()})"
            post = self.wp.get_post(post_id)
            if not post.ok or not isinstance(post.body, dict):
                return f"the post could not be read ({post.describe()})"
            content = post.body.get("content")
            raw = content.get("raw", "") if isinstance(content, dict) else str(content or "")
            digest = hashlib.sha256(raw.encode("utf-8")).hexdigest()
            answer, approval = self.approvals.in_force(
                job_id=job.job_id, version=job.version, post_id=post_id, content_sha256=digest,
                now_unix=float(self.clock.unix()))
            if approval is None:
                return f"no approval in force ({answer.describe()})"
            return None
        return guard

    def publish(self, job: Job, fence: str, base_guard: Callable[[], str | None]) -> str:
        """Publish under an approval in force: the effect's status (``refused`` while none)."""
        post_id = self.post_id(job)
        if post_id is None:
            return "refused"
        action = Action(job.job_id, job.version, "publish", "wp_publish", {"post_id": post_id})
        guard = self.publish_guard(job, base_guard)
        row = self.outbox.get(action.key)
        if row is not None and row["state"] == "CONFIRMED":
            return "done"
        if (row is None or row["state"] not in OPEN_STATES) and guard():
            return "refused"  # nothing to settle, and no approval: no ledger row either
        return self.effects.perform(action, fence, guard).status


def _image_index(role: str) -> int:
    try:
        return int(role.split(":", 1)[1])
    except ValueError:
        return 10_000
