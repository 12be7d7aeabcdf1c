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
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from durable_harness.fakes.wordpress._errors import WPError
from durable_harness.fakes.wordpress._params import php_empty
from durable_harness.fakes.wordpress._records import Clock, Item, MediaFile, PostChange, Revision
from durable_harness.fakes.wordpress._text import sanitize_text, sanitize_title

__all__ = ["FLOATING", "Clock", "Item", "MediaFile", "PostChange", "WordPressState"]

FLOATING = ("draft", "pending", "auto-draft")
REGISTERED_META = ("operation_key",)  # the must-use plugin's key, on posts and attachments
CATEGORIES = (1,)  # "Uncategorized" is the only term the site has
_FEEDS = ("feed", "rdf", "rss", "rss2", "atom")  # the rewrite rules' feed names: slugs a post or an upload cannot take
_SCHEDULE_S = 60  # core treats a publish date at least a minute ahead as "future"


def _falsy(text: str) -> bool:
    return text in ("", "0")  # PHP's ! $post_content


class DryRun(Exception):
    """Raised by a write while the state only validates (a batch with ``require-all-validate``)."""


class WordPressState:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._items: dict[int, Item] = {}
        self._next_id = 1
        self.mutations = 0
        self.dry_run = False  # every write raises DryRun before it changes anything

    def _writing(self) -> None:
        if self.dry_run:
            raise DryRun()

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
        """``wp_unique_post_slug``: taken slugs get ``-2``, ``-3``…; so do slugs a URL of the site
        would read as something else: a feed (``feed``, ``rss``…) or ``embed``, a number for a post
        (a date archive under ``/%postname%/`` permalinks: ``2024`` is ``2024-2``), a number or
        ``pageN`` for a page (pagination)."""
        if not slug:
            return slug
        taken = {o.slug for o in self._items.values()
                 if o.live and o.id != item.id and (item.type == "attachment" or o.type == item.type)}
        if slug not in taken and not self._reserved(slug, item):
            return slug
        candidate, n = f"{slug}-2", 3
        while candidate in taken:  # bounded: at most len(taken) clashes
            candidate, n = f"{slug}-{n}", n + 1
        return candidate

    @staticmethod
    def _reserved(slug: str, item: Item) -> bool:
        if slug in _FEEDS or slug == "embed":
            return True
        if item.type == "post":  # a new slug only: a post keeps the number it has
            return slug.isascii() and slug.isdigit() and int(slug) != 0 and item.slug != slug
        return item.type == "page" and re.fullmatch(r"(page)?[0-9]+", slug) is not None

    def generated_slug(self, item: Item) -> str:
        """The edit context's ``generated_slug``: the slug its title would get on publish, whatever slug
        the item has (core's ``get_sample_permalink`` with an empty name), decoded as core answers it
        (``東京``, not ``%e6%9d%b1%e4%ba%ac``)."""
        return unquote(self.unique_slug(sanitize_title(item.title) or str(item.id), item))

    # -- writes ----------------------------------------------------------------------------
    def create_post(self, change: PostChange, *, by: str, author: int, type_: str = "post") -> tuple[Item, WPError | None]:
        """A new ``post`` or ``page``."""
        self._writing()
        now = self._clock.datetime()
        item = Item(id=self._next_id, type=type_, author=author, status=change.status or "draft", date=now,
                    modified=now, created_at=self._clock.now(), created_by=by, date_floating=True,
                    categories=list(CATEGORIES) if type_ == "post" else [])
        self._save(item, change, creating=True)  # raises before anything is stored
        self._next_id += 1
        self._items[item.id] = item
        self._commit(item, by, "create")
        return item, self._after_save(item, change)

    def update(self, item: Item, change: PostChange, *, by: str) -> WPError | None:
        self._writing()
        before = (item.title, item.content, item.excerpt)
        self._save(item, change, creating=False)
        self._maybe_revision(item, before)
        self._commit(item, by, "update")
        return self._after_save(item, change)

    def trash(self, item: Item, *, by: str) -> None:
        self._writing()
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
        self._writing()
        item.deleted_at = self._clock.now()
        for other in self._items.values():
            if other.live and other.featured_media == item.id:
                other.featured_media = 0  # wp_delete_attachment drops every _thumbnail_id pointing at it
            if other.live and other.parent == item.id:
                other.parent = item.parent
        self._commit(item, by, "delete")

    def upload(self, file: MediaFile, change: PostChange, *, by: str, author: int) -> tuple[Item, WPError | None]:
        self._writing()
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
        self._writing()
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
        if item.type != "attachment" and _falsy(title) and _falsy(content) and _falsy(excerpt):
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
        for name in ("comment_status", "ping_status", "sticky", "format", "parent", "menu_order"):
            value = getattr(change, name)
            if value is not None:
                setattr(item, name, value)
        if change.categories is not None and item.type == "post":
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
        if change.featured_media is not None and item.type != "attachment":
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
                # Core adds the data to an error that already had some: it lands in additional_data.
                return WPError("rest_invalid_type", f"meta.{key} is not of type string.", 400,
                               additional_data=[{"param": f"meta.{key}"}])
            else:
                item.meta[key] = value
        return None

    def _maybe_revision(self, item: Item, before: tuple[str, str, str]) -> None:
        """Revisions take ids from the same counter: the first update always makes one, later ones on change.
        A revision copies the post as it is after the update, dated with its modified time."""
        if item.type != "attachment" and (item.revisions == 0 or before != (item.title, item.content, item.excerpt)):
            item.revision_log.append(Revision(self._next_id, item.id, item.author, item.modified, item.title,
                                              item.content, item.excerpt))
            self._next_id += 1

    def _unique_file_name(self, folder: str, name: str) -> str:
        """``wp_unique_filename``: the extension lower-cased, ``-1``, ``-2``... on a clash, and a name that
        looks like an image sub-size (``x-150x150``, ``x-scaled``, ``x-rotated``) numbered from the start."""
        taken = {i.file.name for i in self._items.values() if i.live and i.file is not None and i.file.folder == folder}
        stem, dot, ext = name.rpartition(".")
        if not dot:
            stem, ext = name, ""
        suffix = f".{ext.lower()}" if dot else ""
        n = 1 if re.search(r"-(?:\d+x\d+|scaled|rotated)$", stem) else 0
        candidate = f"{stem}-{n}{suffix}" if n else f"{stem}{suffix}"
        while candidate in taken:  # bounded: at most len(taken) clashes
            n += 1
            candidate = f"{stem}-{n}{suffix}"
        return candidate

    def _commit(self, item: Item, by: str, action: str) -> None:
        self.mutations += 1
        now = self._clock.now()
        event = {"at": now, "by": by, "action": action, "status": item.status}
        if item.type == "post":  # what an approval binds to: the content as it is after this change
            event["content_sha256"] = hashlib.sha256(item.content.encode("utf-8")).hexdigest()
        item.events.append(event)
        if action != "create" and action != "upload":
            item.updates += 1
            item.updated_at = now
        if item.status == "publish" and item.published_at is None:
            item.published_at = now
