"""The records of the WordPress state machine: rows of ``wp_posts`` (``Item``), uploaded files,
revisions, and the change one request asks for (``PostChange``).

Plain data: the rules that move them live in ``_state``; how they look on the wire in ``_render``.
What it deliberately does not do: validate anything (the routes and the state machine do).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["Clock", "Item", "MediaFile", "PostChange", "Revision"]


class Clock(Protocol):
    def now(self) -> float: ...
    def datetime(self) -> _dt.datetime: ...


@dataclass(frozen=True)
class MediaFile:
    name: str  # stored, unique within its folder: "x-1.png"
    original_name: str  # as the client sent it
    folder: str  # "2026/01"
    mime: str
    data: bytes
    width: int
    height: int

    @property
    def relative(self) -> str:
        return f"{self.folder}/{self.name}"

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass(frozen=True)
class Revision:
    """A saved copy of a post's title, content and excerpt (a ``revision`` row of ``wp_posts``)."""

    id: int
    parent: int
    author: int
    date: _dt.datetime  # the parent's modified time when it was saved
    title: str
    content: str
    excerpt: str


@dataclass
class Item:
    """A row of ``wp_posts`` plus its meta. Attachments keep caption in ``excerpt``, description in ``content``."""

    id: int
    type: str  # "post" | "attachment"
    author: int
    status: str
    date: _dt.datetime
    modified: _dt.datetime
    created_at: float
    created_by: str
    date_floating: bool = False
    title: str = ""
    content: str = ""
    excerpt: str = ""
    slug: str = ""
    password: str = ""
    featured_media: int = 0
    comment_status: str = "open"
    ping_status: str = "open"
    sticky: bool = False
    format: str = "standard"
    parent: int = 0
    alt_text: str = ""
    categories: list[int] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    rank_math: dict[str, Any] = field(default_factory=dict)
    file: MediaFile | None = None
    desired_slug: str | None = None
    revision_log: list[Revision] = field(default_factory=list)  # newest last
    menu_order: int = 0
    updates: int = 0
    updated_at: float | None = None
    published_at: float | None = None
    trashed_at: float | None = None
    deleted_at: float | None = None
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def live(self) -> bool:
        return self.deleted_at is None

    @property
    def revisions(self) -> int:
        return len(self.revision_log)

    def meta_value(self, key: str) -> str:
        return self.meta.get(key, "")


@dataclass(frozen=True)
class PostChange:
    """The fields one request sets; None means "leave as it is"."""

    title: str | None = None
    content: str | None = None
    excerpt: str | None = None
    status: str | None = None
    slug: str | None = None
    date: _dt.datetime | None = None
    reset_date: bool = False
    password: str | None = None
    author: int | None = None
    featured_media: int | None = None
    comment_status: str | None = None
    ping_status: str | None = None
    sticky: bool | None = None
    format: str | None = None
    categories: tuple[int, ...] | None = None
    meta: Mapping[str, Any] | None = None
    alt_text: str | None = None
    parent: int | None = None
    menu_order: int | None = None
