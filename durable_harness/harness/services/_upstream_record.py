"""What the gate saw of a real WordPress's items in one run, and the ground truth made of it.

Each item the run met (``Seen``) keeps the site's last answer for it (context ``edit``), whether the
run made it, when (the run's time at which the gate saw the site's answer) and by whom (the label of
the credential, or the site's person the harness wrote for), the digest of the bytes an upload
carried, its Rank Math meta, and one event per change: the shape ``WordPressFake.truth()`` gives, so
that every checker reads a real site as it reads the fake.

What it deliberately does not do: reach the site (``_upstream_wordpress`` does) or judge anything.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Seen", "event", "media_truth", "post_truth", "rank_math_of", "raw"]


@dataclass
class Seen:
    """What the gate saw of one item of the site in this run."""

    id: int
    type: str
    record: dict[str, Any]  # the site's last answer for it (context=edit)
    own: bool = False  # created or changed in this run: part of the run's ground truth
    created_at: float | None = None
    created_by: str | None = None
    upload_sha256: str | None = None
    rank_math: dict[str, str] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    deleted_at: float | None = None

    # -- what ``read_intent`` and ``item_record`` read of an item (``fakes.wordpress._records.Item``)
    @property
    def content(self) -> str:
        return raw(self.record.get("content"))

    @property
    def file(self) -> Any:
        return _File(self.upload_sha256) if self.type == "attachment" and self.upload_sha256 else None

    def meta_value(self, key: str) -> str:
        meta = self.record.get("meta")
        value = meta.get(key) if isinstance(meta, dict) else None
        return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class _File:
    sha256: str


def event(type_: str, record: Mapping[str, Any], by: str | None, action: str, at: float) -> dict[str, Any]:
    """One change of an item, as the fake records it (a post's content digest is what an approval binds)."""
    out: dict[str, Any] = {"at": at, "by": by, "action": action, "status": record.get("status")}
    if type_ != "attachment":
        out["content_sha256"] = hashlib.sha256(raw(record.get("content")).encode("utf-8")).hexdigest()
    return out


def post_truth(seen: Seen) -> dict[str, Any]:
    r = seen.record
    published = next((e["at"] for e in seen.events if e.get("status") in ("publish", "future")), None)
    trashed = next((e["at"] for e in seen.events if e.get("status") == "trash"), None)
    return {
        "id": seen.id, "status": r.get("status"), "title": raw(r.get("title")), "content": seen.content,
        "excerpt": raw(r.get("excerpt")), "slug": r.get("slug"), "date": r.get("date"),
        "featured_media": r.get("featured_media"), "published_at": published, "trashed_at": trashed,
        **_lifecycle(seen),
    }


def media_truth(seen: Seen, to_gate: Callable[[str], str]) -> dict[str, Any]:
    r = seen.record
    details: dict[str, Any] = r["media_details"] if isinstance(r.get("media_details"), dict) else {}
    return {
        "id": seen.id, "filename": str(details.get("file") or "").rpartition("/")[2],
        "path": details.get("file"), "mime_type": r.get("mime_type"), "sha256": seen.upload_sha256,
        "source_url": to_gate(str(r.get("source_url") or "")),
        "title": raw(r.get("title")), "alt_text": r.get("alt_text"), "caption": raw(r.get("caption")),
        "description": raw(r.get("description")), "post": r.get("post") or None,
        **_lifecycle(seen),
    }


def _lifecycle(seen: Seen) -> dict[str, Any]:
    changes = [e for e in seen.events if e.get("action") not in ("create", "upload")]
    return {
        "meta": {"operation_key": seen.meta_value("operation_key")},
        "rank_math": dict(sorted(seen.rank_math.items())),
        "created_at": seen.created_at, "created_by": seen.created_by,
        "updated_at": changes[-1]["at"] if changes else seen.created_at, "updates": len(changes),
        "deleted": seen.deleted_at is not None, "deleted_at": seen.deleted_at,
        "events": [dict(e) for e in seen.events],
    }


def raw(value: Any) -> str:
    """A field's raw text (``{"raw": ...}`` in context edit), or its rendered one, or ``""``."""
    if isinstance(value, dict):
        text = value.get("raw", value.get("rendered"))
        return text if isinstance(text, str) else ""
    return value if isinstance(value, str) else ""


def rank_math_of(record: Mapping[str, Any]) -> dict[str, str]:
    """Rank Math's meta a site shows in ``meta`` (when it exposes it over REST)."""
    meta = record.get("meta")
    if not isinstance(meta, dict):
        return {}
    return {str(k): str(v) for k, v in meta.items() if str(k).startswith("rank_math_") and v not in ("", None)}
