"""``_embed``: the linked resources a response embeds under ``_embedded``, as core does.

``?_embed`` (or ``_embed=1``) embeds every embeddable link; ``_embed=author,wp:term`` only those.
The fake embeds what its items link to: ``author`` (the user, embed context), ``wp:featuredmedia``
(the attachment, embed context) and ``wp:term`` (the post's categories, then its tags: always
none). A linked item that is gone is embedded as core's error body for it.

What it deliberately does not do: ``replies`` (the site has no comments), ``up`` for pages, or
embeds inside embedded items.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from durable_harness.fakes.wordpress._auth import Accounts
from durable_harness.fakes.wordpress._render import Renderer
from durable_harness.fakes.wordpress._state import WordPressState

__all__ = ["embed"]


def _rels(value: str) -> set[str] | None:
    """The rels asked for; None means all."""
    if value.strip() in ("", "1", "true"):
        return None
    return {part.strip() for part in value.split(",") if part.strip()}


def embed(payload: Any, value: str, *, state: WordPressState, accounts: Accounts, renderer: Renderer) -> Any:
    """``payload`` (one item or a list) with ``_embedded`` added where its links allow it."""
    wanted = _rels(value)
    if isinstance(payload, list):
        return [_one(p, wanted, state, accounts, renderer) if isinstance(p, dict) else p for p in payload]
    if isinstance(payload, dict):
        return _one(payload, wanted, state, accounts, renderer)
    return payload


def _one(item: dict[str, Any], wanted: set[str] | None, state: WordPressState, accounts: Accounts,
         renderer: Renderer) -> dict[str, Any]:
    links = item.get("_links")
    if not isinstance(links, dict):
        return item
    embedded: dict[str, Any] = {}
    for rel, targets in links.items():
        if (wanted is not None and rel not in wanted) or not isinstance(targets, Sequence):
            continue
        bodies = [_resolve(rel, t, item, state, accounts, renderer) for t in targets
                  if isinstance(t, dict) and t.get("embeddable")]
        if bodies:
            embedded[rel] = bodies
    return {**item, "_embedded": embedded} if embedded else item


def _resolve(rel: str, target: dict[str, Any], item: dict[str, Any], state: WordPressState, accounts: Accounts,
             renderer: Renderer) -> Any:
    if rel == "author":
        user = next((u for u in accounts.users if u.id == item.get("author")), None)
        if user is None:
            return {"code": "rest_user_invalid_id", "message": "Invalid user ID.", "data": {"status": 404}}
        body = renderer.user(user, "view")
        body.pop("meta", None)
        return body
    if rel == "wp:featuredmedia":
        media = state.get(int(item.get("featured_media") or 0), "attachment")
        if media is None:
            return {"code": "rest_post_invalid_id", "message": "Invalid post ID.", "data": {"status": 404}}
        return renderer.attachment(media, "embed")
    if rel == "wp:term":
        if target.get("taxonomy") == "category" and 1 in (item.get("categories") or []):
            return [renderer.category_embed()]
        return []
    return None
