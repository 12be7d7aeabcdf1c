"""The agent's tools (function-tool definitions) and the business role of each call.

Operation keys are derived from the job, the version and the *business action* (its role:
`image:2`, `article`, `article:update`, ...), never from the call id, so an action asked for again
under a new call id finds its receipt.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

_S = {"type": "string"}
_I = {"type": "integer"}

TOOL_PARAMS: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "wp_upload_media": ("Upload one image to the WordPress media library.",
                        {"filename": _S, "content_base64": _S, "mime_type": _S, "alt_text": _S},
                        ["filename", "content_base64", "mime_type", "alt_text"]),
    "wp_create_draft": ("Create the article as a WordPress draft.",
                        {"title": _S, "content": _S, "excerpt": _S, "slug": _S}, ["title", "content"]),
    "wp_update_post": ("Update fields of the article (excerpt, featured image, content).",
                       {"post_id": _I, "excerpt": _S, "featured_media": _I, "content": _S}, ["post_id"]),
    "wp_set_seo": ("Set the article's Rank Math SEO title, description and focus keyword.",
                   {"post_id": _I, "title": _S, "description": _S, "focus_keyword": _S},
                   ["post_id", "title", "description", "focus_keyword"]),
    "wp_get_post": ("Read the article back.", {"post_id": _I}, ["post_id"]),
    "wp_append_block": ("Append a block to the article.", {"post_id": _I, "block": _S}, ["post_id", "block"]),
    "wp_publish": ("Publish the article (the control plane does this under an approval).",
                   {"post_id": _I}, ["post_id"]),
    "deliver_result": ("Deliver the report of the coding task for checking.",
                       {"artifact_id": _S, "path": _S, "sha256": _S,
                        "tests": {"type": "object",
                                  "properties": {"passed": {"type": "boolean"}, "output": _S,
                                                 "reset_count": _I},
                                  "required": ["passed", "output", "reset_count"]}},
                       ["artifact_id", "path", "sha256", "tests"]),
}

ARTICLE_WRITE_TOOLS = ("wp_upload_media", "wp_create_draft", "wp_update_post", "wp_set_seo")


def definitions(allowed: list[str]) -> list[dict[str, Any]]:
    """One function tool per allowed tool this control plane knows."""
    tools = []
    for name in allowed:
        if name not in TOOL_PARAMS:
            continue
        description, props, required = TOOL_PARAMS[name]
        tools.append({"type": "function", "name": name, "description": description,
                      "parameters": {"type": "object", "properties": props, "required": required}})
    return tools


def needed_tools(workload: str, images: int) -> list[str]:
    """The tools without which the job's work cannot be finished."""
    if workload == "coding":
        return ["deliver_result"]
    needed = ["wp_create_draft", "wp_update_post", "wp_set_seo"]
    return (["wp_upload_media"] if images > 0 else []) + needed


def image_number(args: dict[str, Any], known: dict[str, int]) -> int:
    """Which image of the job an upload is: from its file name (`…-2.png`), else by content."""
    match = re.search(r"-(\d+)\.[A-Za-z0-9]+$", str(args.get("filename", "")))
    if match:
        return int(match.group(1))
    digest = content_digest(args)
    return known.get(digest, len(known) + 1)


def content_digest(args: dict[str, Any]) -> str:
    return hashlib.sha256(str(args.get("content_base64", "")).encode()).hexdigest()


def role_of(name: str, args: dict[str, Any], known_images: dict[str, int]) -> str:
    if name == "wp_upload_media":
        return f"image:{image_number(args, known_images)}"
    return {"wp_create_draft": "article", "wp_update_post": "article:update", "wp_set_seo": "article:seo",
            "wp_get_post": "article:read", "wp_publish": "article:publish",
            "deliver_result": "report"}.get(name, f"tool:{name}")


def operation_key(job_id: str, version: str, role: str) -> str:
    return f"{job_id}/v{version}/{role}"


def request_hash(name: str, args: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps([name, args], sort_keys=True, default=str).encode()).hexdigest()[:32]


def arguments(raw: Any) -> dict[str, Any]:
    """A call's arguments as an object (decoded when a string comes)."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return {}
    return raw if isinstance(raw, dict) else {}
