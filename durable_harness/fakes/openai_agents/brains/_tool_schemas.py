"""The function tools each workload's brain calls, as a session's agent must declare them.

The agent of a session can call only the tools its ``agent.tools`` declare (the turn engine
enforces it). These are the definitions that fit what the brains send: every argument a brain
writes is a property here, with its JSON type, and the ones it always sends are ``required``.
``ArticleBrain.tools()`` and ``CodingBrain.tools()`` return fresh copies, ready for
``sessions.create(agent={"model": ..., "tools": ...})``; the candidate contract shows the same shapes.

What it deliberately does not do: decide what a control plane declares (it may declare more
tools, or describe them in its own words), or validate arguments (the tests do, with these).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ARTICLE_TOOL_NAMES", "CODING_TOOL_NAMES", "function_tools"]

_INT: dict[str, Any] = {"type": "integer"}
_STR: dict[str, Any] = {"type": "string"}

# name -> (description, properties, required)
_TOOLS: Mapping[str, tuple[str, dict[str, Any], list[str]]] = {
    "wp_upload_media": (
        "Upload one image to the WordPress media library.",
        {"filename": _STR, "content_base64": _STR, "mime_type": _STR, "alt_text": _STR},
        ["filename", "content_base64", "mime_type", "alt_text"]),
    "wp_create_draft": (
        "Create the article as a WordPress draft.",
        {"title": _STR, "content": _STR, "excerpt": _STR, "slug": _STR},
        ["title", "content"]),
    "wp_update_post": (
        "Update fields of the draft.",
        {"post_id": _INT, "excerpt": _STR, "featured_media": _INT, "content": _STR},
        ["post_id"]),
    "wp_set_seo": (
        "Set the Rank Math SEO title, description and focus keyword of the draft.",
        {"post_id": _INT, "title": _STR, "description": _STR, "focus_keyword": _STR},
        ["post_id", "title", "description", "focus_keyword"]),
    "wp_get_post": (
        "Read the draft back to verify it.",
        {"post_id": _INT},
        ["post_id"]),
    "deliver_result": (
        "Deliver the report artifact with its digest and the test result.",
        {"artifact_id": _STR, "path": _STR, "sha256": _STR,
         "tests": {"type": "object",
                   "properties": {"passed": {"type": "boolean"}, "output": _STR, "reset_count": _INT},
                   "required": ["passed", "output", "reset_count"]}},
        ["artifact_id", "path", "sha256", "tests"]),
}

ARTICLE_TOOL_NAMES = ("wp_upload_media", "wp_create_draft", "wp_update_post", "wp_set_seo", "wp_get_post")
CODING_TOOL_NAMES = ("deliver_result",)


def function_tools(names: Sequence[str]) -> list[dict[str, Any]]:
    """Fresh function tool definitions of ``names``, in that order."""
    unknown = [name for name in names if name not in _TOOLS]
    if unknown:
        raise ValueError(f"no brain calls the tools {unknown!r}; known: {sorted(_TOOLS)!r}")
    tools = []
    for name in names:
        description, properties, required = _TOOLS[name]
        tools.append({"type": "function", "name": name, "description": description,
                      "parameters": copy.deepcopy({"type": "object", "properties": properties,
                                                   "required": required})})
    return tools
