"""What the reference tells the agent: the task prompt and the function tools it may call."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["WORKLOAD_TOOLS", "function_tools", "task_prompt"]

_INT = {"type": "integer"}
_STR = {"type": "string"}

_TOOLS: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "wp_upload_media": ("Upload an image to the WordPress media library.",
                        {"filename": _STR, "content_base64": _STR, "mime_type": _STR, "alt_text": _STR},
                        ["filename", "content_base64", "mime_type"]),
    "wp_create_draft": ("Create the article as a WordPress draft.",
                        {"title": _STR, "content": _STR, "excerpt": _STR, "slug": _STR}, ["title", "content"]),
    "wp_update_post": ("Update fields of the draft.",
                       {"post_id": _INT, "excerpt": _STR, "featured_media": _INT, "content": _STR}, ["post_id"]),
    "wp_set_seo": ("Set the Rank Math SEO title, description and focus keyword.",
                   {"post_id": _INT, "title": _STR, "description": _STR, "focus_keyword": _STR},
                   ["post_id", "title", "description", "focus_keyword"]),
    "wp_get_post": ("Read the draft back to verify it.", {"post_id": _INT}, ["post_id"]),
    "wp_append_block": ("Append a block to the post content once.",
                        {"post_id": _INT, "block_id": _STR, "html": _STR}, ["post_id", "block_id", "html"]),
    "wp_publish": ("Publish the post (only with an approval in force).", {"post_id": _INT}, ["post_id"]),
    "deliver_result": ("Deliver the report artifact with its digest and the test result.",
                       {"artifact_id": _STR, "path": _STR, "sha256": _STR, "tests": {"type": "object"}},
                       ["artifact_id", "sha256", "tests"]),
}


# Every tool the agent of a workload may ask for (what a control plane declares when it does not
# narrow the agent to the job's allowed tools).
WORKLOAD_TOOLS = {"article": ("wp_upload_media", "wp_create_draft", "wp_update_post", "wp_set_seo", "wp_get_post",
                              "wp_append_block", "wp_publish"),
                  "coding": ("deliver_result",)}


def function_tools(allowed: Sequence[str]) -> list[dict[str, Any]]:
    out = []
    for name in allowed:
        if name in _TOOLS:
            description, props, required = _TOOLS[name]
            out.append({"type": "function", "name": name, "description": description,
                        "parameters": {"type": "object", "properties": props, "required": required}})
    return out


def task_prompt(job: Mapping[str, Any]) -> str:
    return (
        ("Write and stage a WordPress article for this job. Use only the tools given; never publish without approval.\n"
         if job.get("workload") != "coding" else
         "Implement the module, test it in the sandbox, and deliver the report with deliver_result.\n") +
        f"job_id: {job['job_id']}\ntask_version: {job['task_version']}\n"
        f"input: {json.dumps(job.get('input', {}), sort_keys=True)}"
    )
