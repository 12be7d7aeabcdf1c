"""The article workload: the n8n -> WordPress job, as the harness sees it.

It builds the job a scenario submits, and maps the fakes' ground truth back to business roles:
a post is the article of (job, version) when its content carries the brain's watermark
``<!-- durable-harness job=J version=V role=article -->``; a media item is image n of (job,
version) when its bytes are the ones the brain generated (the sessions fake registers them).

It deliberately does not script the agent (that is the brain, in ``fakes.openai_agents``) nor
judge (checkers do).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

__all__ = ["ARTICLE_TOOLS", "build_job", "media_by_role", "posts_by_role"]

ARTICLE_TOOLS = (
    "wp_upload_media", "wp_create_draft", "wp_update_post", "wp_set_seo", "wp_get_post",
    "wp_append_block", "wp_publish",
)

_WATERMARK = re.compile(r"<!-- durable-harness job=(\S+) version=(\S+) role=(\S+) -->")

DEFAULT_INPUT = {
    "topic": "Recovering long agent jobs without duplicate side effects",
    "title": "Read first, reconcile, then continue",
    "focus_keyword": "durable agent sessions",
    "images": 3,
    "preamble_items": 0,
}


def build_job(job_id: str, task_version: str, params: Mapping[str, Any]) -> dict[str, Any]:
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


Role = tuple[str, str, str]


def posts_by_role(wordpress_truth: Mapping[str, Any]) -> dict[Role, list[Mapping[str, Any]]]:
    """Every post ever created (trashed included), grouped by its watermark (job, version, role)."""
    out: dict[Role, list[Mapping[str, Any]]] = defaultdict(list)
    for post in wordpress_truth.get("posts", []):
        match = _WATERMARK.search(str(post.get("content", "")))
        if match:
            out[(match.group(1), match.group(2), match.group(3))].append(post)
    return dict(out)


def media_by_role(wordpress_truth: Mapping[str, Any], openai_truth: Mapping[str, Any]) -> dict[Role, list[Mapping[str, Any]]]:
    """Every upload ever made, grouped by the generated payload it carries."""
    payloads = openai_truth.get("payloads", {})
    out: dict[Role, list[Mapping[str, Any]]] = defaultdict(list)
    for item in wordpress_truth.get("media", []):
        owner = payloads.get(item.get("sha256"))
        if owner:
            out[(owner["job_id"], owner["task_version"], owner["role"])].append(item)
    return dict(out)
