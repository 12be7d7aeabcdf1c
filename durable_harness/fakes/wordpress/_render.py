"""Items as the REST API shows them: posts, pages, attachments, revisions and users, in each context.

The shapes follow the posts and attachments controllers: ``raw`` sub-fields, ``password``,
``permalink_template`` and ``generated_slug`` only in the edit context; ``meta`` is an object
because a key is registered; dates are site-local without a zone (the site runs on UTC);
drafts link to ``?p=<id>`` (pages to ``?page_id=<id>``). ``filter_fields`` implements ``_fields``.

What it deliberately does not do: embed (``_embed``), comments links, or term links beyond
category 1; rendered HTML is an approximation (see ``_text``).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from durable_harness.fakes.wordpress._auth import User
from durable_harness.fakes.wordpress._images import sub_sizes
from durable_harness.fakes.wordpress._records import Item, Revision
from durable_harness.fakes.wordpress._state import FLOATING, REGISTERED_META, WordPressState
from durable_harness.fakes.wordpress._text import auto_excerpt, render_content, render_text
from durable_harness.fakes.wordpress._wire import Site

__all__ = ["Renderer", "filter_fields"]

_EDIT_ONLY = {"password", "permalink_template", "generated_slug", "missing_image_sizes"}
_VIEW_EDIT_ONLY = {"date_gmt", "guid", "modified", "modified_gmt", "status", "content", "comment_status",
                   "ping_status", "sticky", "template", "format", "meta", "categories", "tags", "class_list",
                   "description", "post"}
_IMAGE_META = {"aperture": "0", "credit": "", "camera": "", "caption": "", "created_timestamp": "0",
               "copyright": "", "focal_length": "0", "iso": "0", "shutter_speed": "0", "title": "",
               "orientation": "0", "keywords": []}


def _wp_date(value: _dt.datetime) -> str:
    return value.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")


def _in_context(data: dict[str, Any], context: str) -> dict[str, Any]:
    if context == "edit":
        return data
    kept = {k: v for k, v in data.items() if k not in _EDIT_ONLY and (context == "view" or k not in _VIEW_EDIT_ONLY)}
    for key, value in kept.items():
        if isinstance(value, dict) and "raw" in value:
            kept[key] = {k: v for k, v in value.items() if k not in ("raw", "block_version")}
    return kept


def filter_fields(data: Mapping[str, Any], fields: Sequence[str]) -> dict[str, Any]:
    """``_fields=id,title.raw``: only the listed top-level or nested fields (``_links`` only if listed)."""
    out: dict[str, Any] = {}
    for path in fields:
        parts = path.split(".")
        source: Any = data
        target = out
        for depth, part in enumerate(parts):
            if not isinstance(source, Mapping) or part not in source:
                break
            source = source[part]
            if depth == len(parts) - 1:
                target[part] = source
                break
            nested = target.setdefault(part, {})
            if not isinstance(nested, dict):
                break
            target = nested
    return out


class Renderer:
    def __init__(self, site: Site, state: WordPressState) -> None:
        self._site = site
        self._state = state

    def item(self, item: Item, context: str, *, user: User | None) -> dict[str, Any]:
        if item.type == "attachment":
            return self.attachment(item, context)
        return self.post(item, context, user=user)

    # -- posts -------------------------------------------------------------------------------
    def link(self, item: Item) -> str:
        if item.type == "attachment":
            parent = self._state.get(item.parent) if item.parent else None
            if parent is None:
                return f"{self._site.url}/{item.slug}/"
            if parent.status in ("publish", "private"):
                return f"{self._site.url}/{parent.slug}/{item.slug}/"
            return f"{self._site.url}/?attachment_id={item.id}"
        if item.status in FLOATING or item.status == "future" or not item.slug:
            return f"{self._site.url}/?{'page_id' if item.type == 'page' else 'p'}={item.id}"
        return f"{self._site.url}/{item.slug}/"

    def _common(self, item: Item) -> dict[str, Any]:
        guid = self.source_url(item) if item.file is not None else f"{self._site.url}/?p={item.id}"
        return {
            "id": item.id,
            "date": _wp_date(item.date),
            "date_gmt": _wp_date(item.date),
            "guid": {"rendered": guid.replace("&", "&#038;"), "raw": guid},
            "modified": _wp_date(item.modified),
            "modified_gmt": _wp_date(item.modified),
            "password": item.password,
            "slug": item.slug,
            "status": item.status,
            "type": item.type,
            "link": self.link(item),
            "title": {"raw": item.title, "rendered": render_text(item.title)},
        }

    def _links(self, item: Item, route: str) -> dict[str, Any]:
        links: dict[str, Any] = {
            "self": [{"href": self._site.rest_url(f"{route}/{item.id}")}],
            "collection": [{"href": self._site.rest_url(route)}],
            "about": [{"href": self._site.rest_url(f"/wp/v2/types/{item.type}")}],
            "author": [{"embeddable": True, "href": self._site.rest_url(f"/wp/v2/users/{item.author}")}],
        }
        if item.type != "attachment":
            links["version-history"] = [{"count": item.revisions, "href": self._site.rest_url(f"{route}/{item.id}/revisions")}]
        if item.type == "post":
            links["wp:term"] = [{"taxonomy": "category", "embeddable": True,
                                 "href": self._site.rest_url(f"/wp/v2/categories?post={item.id}")},
                                {"taxonomy": "post_tag", "embeddable": True,
                                 "href": self._site.rest_url(f"/wp/v2/tags?post={item.id}")}]
        if item.featured_media:
            links["wp:featuredmedia"] = [{"embeddable": True,
                                          "href": self._site.rest_url(f"/wp/v2/media/{item.featured_media}")}]
        return links

    def post(self, item: Item, context: str, *, user: User | None) -> dict[str, Any]:
        protected = bool(item.password) and not (context == "edit" and user is not None)
        data = self._common(item)
        data.update({
            "content": {"raw": item.content, "rendered": "" if protected else render_content(item.content),
                        "protected": bool(item.password), "block_version": int("<!-- wp:" in item.content)},
            "excerpt": {"raw": item.excerpt, "rendered": "" if protected else auto_excerpt(item.excerpt, item.content),
                        "protected": bool(item.password)},
            "author": item.author,
            "featured_media": item.featured_media,
            "comment_status": item.comment_status,
            "ping_status": item.ping_status,
            "sticky": item.sticky,
            "template": "",
            "format": item.format,
            "meta": {key: item.meta_value(key) for key in REGISTERED_META},
            "categories": list(item.categories),
            "tags": [],
            "class_list": [f"post-{item.id}", "post", "type-post", f"status-{item.status}", "format-standard",
                           "hentry", *(["category-uncategorized"] if item.categories else [])],
            "permalink_template": f"{self._site.url}/%postname%/",
            "generated_slug": self._state.generated_slug(item),
            "_links": self._links(item, "/wp/v2/posts"),
        })
        if item.type == "page":
            for key in ("categories", "tags", "sticky", "format"):
                del data[key]
            data.update(parent=item.parent, menu_order=item.menu_order, _links=self._links(item, "/wp/v2/pages"),
                        class_list=[f"post-{item.id}", "page", "type-page", f"status-{item.status}", "hentry"],
                        permalink_template=f"{self._site.url}/%pagename%/")
        return _in_context(data, context)

    def revision(self, revision: Revision, parent: Item, route: str, context: str) -> dict[str, Any]:
        """A revision as ``/<type>/<id>/revisions`` shows it (``raw`` fields in the edit context)."""
        data = {
            "author": revision.author, "date": _wp_date(revision.date), "date_gmt": _wp_date(revision.date),
            "id": revision.id, "modified": _wp_date(revision.date), "modified_gmt": _wp_date(revision.date),
            "parent": parent.id, "slug": f"{parent.id}-revision-v1",
            "guid": {"rendered": f"{self._site.url}/?p={revision.id}", "raw": f"{self._site.url}/?p={revision.id}"},
            "title": {"raw": revision.title, "rendered": render_text(revision.title)},
            "content": {"raw": revision.content, "rendered": render_content(revision.content)},
            "excerpt": {"raw": revision.excerpt, "rendered": auto_excerpt(revision.excerpt, "")},  # no automatic one
            "_links": {"parent": [{"href": self._site.rest_url(f"{route}/{parent.id}")}]},
        }
        return _in_context(data, context)

    # -- attachments ---------------------------------------------------------------------------
    def source_url(self, item: Item) -> str:
        assert item.file is not None, f"item {item.id!r} is not an attachment"
        return f"{self._site.url}/wp-content/uploads/{item.file.relative}"

    def attachment(self, item: Item, context: str) -> dict[str, Any]:
        assert item.file is not None, f"item {item.id!r} is not an attachment"
        url = self.source_url(item)
        data = self._common(item)
        del data["password"]
        is_image = item.file.mime.startswith("image/")
        shown = f"<img src=\"{url}\" alt=\"{item.alt_text}\" />" if is_image else render_text(item.title)
        image = f"<p class=\"attachment\"><a href='{url}'>{shown}</a></p>\n"
        data.update({
            "author": item.author,
            "comment_status": item.comment_status,
            "ping_status": item.ping_status,
            "template": "",
            "meta": {key: item.meta_value(key) for key in REGISTERED_META},
            "class_list": [f"post-{item.id}", "attachment", "type-attachment", "status-inherit", "hentry"],
            "permalink_template": f"{self._site.url}/%postname%/",
            "generated_slug": item.slug,
            "description": {"raw": item.content, "rendered": image + render_content(item.content)},
            "caption": {"raw": item.excerpt, "rendered": auto_excerpt(item.excerpt, item.content)},
            "alt_text": item.alt_text,
            "media_type": "image" if is_image else "file",
            "mime_type": item.file.mime,
            "media_details": self._media_details(item),
            "post": item.parent or None,
            "source_url": url,
            "missing_image_sizes": [],
            "_links": self._links(item, "/wp/v2/media"),
        })
        return _in_context(data, context)

    def _media_details(self, item: Item) -> dict[str, Any]:
        assert item.file is not None
        file = item.file
        if not file.mime.startswith("image/"):
            return {"filesize": len(file.data), "sizes": {}}
        folder_url = f"{self._site.url}/wp-content/uploads/{file.folder}/"
        stem, _, ext = file.name.rpartition(".")
        sizes: dict[str, Any] = {}
        for name, (width, height) in sub_sizes(file.width, file.height).items():
            sized = f"{stem}-{width}x{height}.{ext}"
            sizes[name] = {"file": sized, "width": width, "height": height, "mime_type": file.mime,
                           "source_url": folder_url + sized}
        if sizes:
            sizes["full"] = {"file": file.name, "width": file.width, "height": file.height,
                             "mime_type": file.mime, "source_url": folder_url + file.name}
        return {"width": file.width, "height": file.height, "file": file.relative, "filesize": len(file.data),
                "sizes": sizes, "image_meta": dict(_IMAGE_META)}

    # -- terms -------------------------------------------------------------------------------
    def category(self) -> dict[str, Any]:
        """"Uncategorized", the one category the site has, with its count of published posts."""
        site = self._site
        count = sum(1 for p in self._state.live("post") if p.status == "publish" and 1 in p.categories)
        return {"id": 1, "count": count, "description": "", "link": f"{site.url}/category/uncategorized/",
                "name": "Uncategorized", "slug": "uncategorized", "taxonomy": "category", "parent": 0, "meta": [],
                "_links": {"self": [{"href": site.rest_url("/wp/v2/categories/1")}],
                           "collection": [{"href": site.rest_url("/wp/v2/categories")}],
                           "about": [{"href": site.rest_url("/wp/v2/taxonomies/category")}],
                           "wp:post_type": [{"href": site.rest_url("/wp/v2/posts?categories=1")}]}}

    def category_embed(self) -> dict[str, Any]:
        full = self.category()
        return {k: full[k] for k in ("id", "link", "name", "slug", "taxonomy", "_links")}

    # -- the user ----------------------------------------------------------------------------
    def user(self, user: User, context: str) -> dict[str, Any]:
        gravatar = hashlib.md5(user.email.lower().encode(), usedforsecurity=False).hexdigest()
        data: dict[str, Any] = {
            "id": user.id,
            "username": user.login,
            "name": user.name,
            "first_name": "",
            "last_name": "",
            "email": user.email,
            "url": "",
            "description": "",
            "link": f"{self._site.url}/author/{user.login}/",
            "locale": "en_US",
            "nickname": user.login,
            "slug": user.login,
            "roles": [user.role],
            "registered_date": "2026-01-01T00:00:00+00:00",
            "capabilities": {"edit_posts": True, "publish_posts": True, "upload_files": True,
                             "edit_others_posts": True, user.role: True},
            "extra_capabilities": {user.role: True},
            "avatar_urls": {str(s): f"https://secure.gravatar.com/avatar/{gravatar}?s={s}&d=mm&r=g" for s in (24, 48, 96)},
            "meta": [],
            "_links": {"self": [{"href": self._site.rest_url(f"/wp/v2/users/{user.id}")}],
                       "collection": [{"href": self._site.rest_url("/wp/v2/users")}]},
        }
        if context != "edit":
            for key in ("username", "first_name", "last_name", "email", "locale", "nickname", "roles",
                        "registered_date", "capabilities", "extra_capabilities"):
                del data[key]
        return data
