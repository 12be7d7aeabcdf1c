"""The WordPress state machine: posts, attachments, registered meta and Rank Math meta.

Pure and synchronous: no HTTP, no wall clock, no randomness (ids are one counter shared by posts,
attachments and revisions, as in ``wp_posts``). Each public write is one committed change: it
bumps ``mutations`` and appends an event to the item's history, which ``truth`` exposes. The
rules are core's: draft slugs stay empty, floating draft dates, publish/future by date, unique
slugs with ``-2``, trash renames to ``__trashed``, ``featured_media`` silently dropped or
cleared, registered meta validated *after* the save (the write stands, the error is returned).

What it deliberately does not do: permissions, parameter parsing or rendering (the routes and
``_render`` do), terms beyond category 1, comments, scheduled publishing by cron.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from fakes.wordpress._errors import WPError
from fakes.wordpress._params import php_empty
from fakes.wordpress._text import sanitize_text, sanitize_title

__all__ = ["FLOATING", "Clock", "Item", "MediaFile", "PostChange", "WordPressState"]

FLOATING = ("draft", "pending", "auto-draft")
REGISTERED_META = ("operation_key",)  # the must-use plugin's key, on posts and attachments
CATEGORIES = (1,)  # "Uncategorized" is the only term the site has
_SCHEDULE_S = 60  # core treats a publish date at least a minute ahead as "future"


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
    revisions: int = 0
    updates: int = 0
    updated_at: float | None = None
    published_at: float | None = None
    trashed_at: float | None = None
    deleted_at: float | None = None
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def live(self) -> bool:
        return self.deleted_at is None

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


def _falsy(text: str) -> bool:
    return text in ("", "0")  # PHP's ! $post_content


class WordPressState:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._items: dict[int, Item] = {}
        self._next_id = 1
        self.mutations = 0

    # -- reads -----------------------------------------------------------------------------
    def get(self, item_id: int, type_: str | None = None) -> Item | None:
        item = self._items.get(item_id)
        if item is None or not item.live or (type_ is not None and item.type != type_):
            return None
        return item

    def live(self, type_: str) -> list[Item]:
        return [i for i in self._items.values() if i.live and i.type == type_]

    def records(self, type_: str) -> list[Item]:
        """Every item of the type ever created, force-deleted ones included, by id."""
        return sorted((i for i in self._items.values() if i.type == type_), key=lambda i: i.id)

    def unique_slug(self, slug: str, item: Item) -> str:
        if not slug:
            return slug
        taken = {o.slug for o in self._items.values()
                 if o.live and o.id != item.id and (item.type == "attachment" or o.type == item.type)}
        candidate, n = slug, 2
        while candidate in taken:  # bounded: at most len(taken) clashes
            candidate, n = f"{slug}-{n}", n + 1
        return candidate

    def generated_slug(self, item: Item) -> str:
        """The slug a draft would get on publish (the edit context's ``generated_slug``)."""
        return item.slug or self.unique_slug(sanitize_title(item.title) or str(item.id), item)

    # -- writes ----------------------------------------------------------------------------
    def create_post(self, change: PostChange, *, by: str, author: int) -> tuple[Item, WPError | None]:
        now = self._clock.datetime()
        item = Item(id=self._next_id, type="post", author=author, status=change.status or "draft", date=now,
                    modified=now, created_at=self._clock.now(), created_by=by, date_floating=True,
                    categories=list(CATEGORIES))
        self._save(item, change, creating=True)  # raises before anything is stored
        self._next_id += 1
        self._items[item.id] = item
        self._commit(item, by, "create")
        return item, self._after_save(item, change)

    def update(self, item: Item, change: PostChange, *, by: str) -> WPError | None:
        before = (item.title, item.content, item.excerpt)
        self._save(item, change, creating=False)
        self._maybe_revision(item, before)
        self._commit(item, by, "update")
        return self._after_save(item, change)

    def trash(self, item: Item, *, by: str) -> None:
        before = (item.title, item.content, item.excerpt)
        item.desired_slug = item.slug
        suffixed = item.slug if item.slug.endswith("__trashed") else item.slug + "__trashed"
        item.status = "trash"
        item.slug = self.unique_slug(suffixed, item)
        item.modified = self._clock.datetime()
        item.trashed_at = self._clock.now()
        self._maybe_revision(item, before)
        self._commit(item, by, "trash")

    def delete(self, item: Item, *, by: str) -> None:
        item.deleted_at = self._clock.now()
        for other in self._items.values():
            if other.live and other.featured_media == item.id:
                other.featured_media = 0  # wp_delete_attachment drops every _thumbnail_id pointing at it
            if other.live and other.parent == item.id:
                other.parent = item.parent
        self._commit(item, by, "delete")

    def upload(self, file: MediaFile, change: PostChange, *, by: str, author: int) -> tuple[Item, WPError | None]:
        now = self._clock.datetime()
        folder = now.strftime("%Y/%m")
        stored = MediaFile(self._unique_file_name(folder, file.name), file.original_name, folder,
                           file.mime, file.data, file.width, file.height)
        title = change.title if change.title is not None else stored.name.rpartition(".")[0]
        item = Item(id=self._next_id, type="attachment", author=author, status="inherit", date=now, modified=now,
                    created_at=self._clock.now(), created_by=by, title=title, content=change.content or "",
                    excerpt=change.excerpt or "", ping_status="closed", parent=change.parent or 0,
                    alt_text=sanitize_text(change.alt_text or ""), file=stored)
        item.slug = self.unique_slug(sanitize_title(title) or str(item.id), item)
        self._next_id += 1
        self._items[item.id] = item
        self._commit(item, by, "upload")
        return item, self._apply_meta(item, change.meta)

    def rank_math(self, item: Item, meta: Mapping[str, Any], *, by: str) -> str | bool:
        """Rank Math's ``updateMeta``: returns its ``slug`` (True unless a permalink was set)."""
        changed = False
        slug: str | bool = True
        permalink = meta.get("permalink")
        if isinstance(permalink, str) and not php_empty(permalink):
            slug = self.unique_slug(sanitize_title(permalink), item)
            if slug != item.slug:
                item.slug, item.modified, changed = slug, self._clock.datetime(), True
        for key, value in meta.items():
            if key == "permalink" or key.startswith("rank_math_delete_"):
                continue
            if php_empty(value):  # an empty value deletes the key, whatever it is
                changed = item.rank_math.pop(key, None) is not None or item.meta.pop(key, None) is not None or changed
            elif key.startswith("rank_math_"):
                clean = sanitize_text(value) if isinstance(value, str) else value
                changed = changed or item.rank_math.get(key) != clean
                item.rank_math[key] = clean
        if changed:
            self._commit(item, by, "rank_math")
        return slug

    # -- the rules -------------------------------------------------------------------------
    def _save(self, item: Item, change: PostChange, *, creating: bool) -> None:
        title = item.title if change.title is None else change.title
        content = item.content if change.content is None else change.content
        excerpt = item.excerpt if change.excerpt is None else change.excerpt
        if item.type == "post" and _falsy(title) and _falsy(content) and _falsy(excerpt):
            raise WPError("empty_content", "Content, title, and excerpt are empty.", 400)
        now = self._clock.datetime()
        old_status = "new" if creating else item.status
        status = change.status or item.status
        date, floating = self._dates(item, change, old_status, status, creating, now)
        if item.type == "post":
            ahead_s = (date - now).total_seconds()
            if status == "publish" and ahead_s >= _SCHEDULE_S:
                status = "future"
            elif status == "future" and ahead_s < _SCHEDULE_S:
                status = "publish"
        item.title, item.content, item.excerpt = title, content, excerpt
        item.slug = self._slug(item, change, old_status, status)
        item.status, item.date, item.date_floating, item.modified = status, date, floating, now
        if change.password is not None:
            item.password = change.password
        if change.author:
            item.author = change.author
        for name in ("comment_status", "ping_status", "sticky", "format", "parent"):
            value = getattr(change, name)
            if value is not None:
                setattr(item, name, value)
        if change.categories is not None:
            item.categories = [c for c in change.categories if c in CATEGORIES]
        if change.alt_text is not None:
            item.alt_text = sanitize_text(change.alt_text)

    def _dates(self, item: Item, change: PostChange, old_status: str, status: str, creating: bool,
               now: _dt.datetime) -> tuple[_dt.datetime, bool]:
        if item.type == "attachment":
            return item.date, False
        if change.date is not None and (creating or change.date != item.date):
            return change.date, False
        if change.reset_date:
            return now, status in FLOATING
        if item.date_floating and (creating or old_status in FLOATING):
            return now, status in FLOATING  # a floating draft date follows every save
        return item.date, item.date_floating and status in FLOATING

    def _slug(self, item: Item, change: PostChange, old_status: str, status: str) -> str:
        slug = item.slug if change.slug is None else sanitize_title(change.slug)
        if old_status == "trash" and status != "trash" and item.desired_slug is not None:
            slug, item.desired_slug = item.desired_slug, None
        if item.type == "attachment":
            return self.unique_slug(slug or sanitize_title(item.title) or str(item.id), item)
        if not slug and status not in FLOATING:
            slug = sanitize_title(item.title) or str(item.id)
        return self.unique_slug(slug, item)

    def _after_save(self, item: Item, change: PostChange) -> WPError | None:
        if change.featured_media is not None and item.type == "post":
            self._set_featured(item, change.featured_media)
        return self._apply_meta(item, change.meta)

    def _set_featured(self, item: Item, media_id: int) -> None:
        if media_id == 0:
            item.featured_media = 0
            return
        target = self.get(media_id)
        if target is None:
            return  # set_post_thumbnail() fails and core ignores it: the value stays
        is_image = target.file is not None and target.file.mime.startswith("image/")
        item.featured_media = media_id if is_image else 0

    def _apply_meta(self, item: Item, meta: Mapping[str, Any] | None) -> WPError | None:
        """Registered meta only; unknown keys are dropped. Runs after the save, so errors leave the write."""
        for key in REGISTERED_META:
            if meta is None or key not in meta:
                continue
            value = meta[key]
            if value is None:
                item.meta.pop(key, None)
            elif not isinstance(value, str):
                return WPError("rest_invalid_type", f"meta.{key} is not of type string.", 400, param=f"meta.{key}")
            else:
                item.meta[key] = value
        return None

    def _maybe_revision(self, item: Item, before: tuple[str, str, str]) -> None:
        """Revisions take ids from the same counter: the first update always makes one, later ones on change."""
        if item.type == "post" and (item.revisions == 0 or before != (item.title, item.content, item.excerpt)):
            item.revisions += 1
            self._next_id += 1

    def _unique_file_name(self, folder: str, name: str) -> str:
        taken = {i.file.name for i in self._items.values() if i.live and i.file is not None and i.file.folder == folder}
        stem, _, ext = name.rpartition(".")
        candidate, n = name, 1
        while candidate in taken:  # bounded: at most len(taken) clashes
            candidate, n = f"{stem}-{n}.{ext}", n + 1
        return candidate

    def _commit(self, item: Item, by: str, action: str) -> None:
        self.mutations += 1
        now = self._clock.now()
        item.events.append({"at": now, "by": by, "action": action, "status": item.status})
        if action != "create" and action != "upload":
            item.updates += 1
            item.updated_at = now
        if item.status == "publish" and item.published_at is None:
            item.published_at = now
