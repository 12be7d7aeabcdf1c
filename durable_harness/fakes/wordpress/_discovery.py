"""What the site says about its own API: the index (``/``), the ``wp/v2`` namespace, post types
(``/wp/v2/types[/<type>]``) and ``OPTIONS`` on any route (its methods, endpoints, arguments and,
for collections and items, the schema's title and property names).

The argument lists are those of WordPress 6.1 (plus ``search_columns``, which the fake honours as
6.2 and later do, and ``operation_key`` when the site has the lookup plugin). ``OPTIONS`` on a path
no route matches answers 200 ``[]``, as core does.

What it deliberately does not do: full JSON Schemas (types, descriptions, enums of each field) or
the full discovery index (its ``routes`` are empty); clients that need them read the real site.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from durable_harness.wire import Request, Response
from durable_harness.fakes.wordpress._api import Api
from durable_harness.fakes.wordpress._errors import WPError

__all__ = ["Discovery"]

NAMESPACES = ("oembed/1.0", "rankmath/v1", "wp/v2", "wp-site-health/v1")
_LIST = ("context", "page", "per_page", "search", "after", "modified_after", "author", "author_exclude", "before",
         "modified_before", "exclude", "include", "offset", "order", "orderby", "search_columns", "slug", "status")
_POST_LIST = (*_LIST, "tax_relation", "categories", "categories_exclude", "tags", "tags_exclude", "sticky")
_PAGE_LIST = (*_LIST, "menu_order", "parent", "parent_exclude")
_MEDIA_LIST = (*_LIST, "parent", "parent_exclude", "media_type", "mime_type")
_WRITE = ("date", "date_gmt", "slug", "status", "password", "title", "content", "author", "excerpt", "featured_media",
          "comment_status", "ping_status", "template", "meta")
_POST_WRITE = (*_WRITE, "format", "sticky", "categories", "tags")
_PAGE_WRITE = (*_WRITE, "parent", "menu_order")
_MEDIA_WRITE = ("date", "date_gmt", "slug", "status", "title", "author", "comment_status", "ping_status", "meta",
                "template", "alt_text", "caption", "description", "post")
_COMMON = ("date", "date_gmt", "guid", "id", "link", "modified", "modified_gmt", "slug", "status", "type", "password",
           "permalink_template", "generated_slug", "title", "content", "author", "excerpt", "featured_media",
           "comment_status", "ping_status", "template", "meta")
_TYPES = {
    "post": ("Posts", "posts", "dashicons-admin-post", ["category", "post_tag"], False),
    "page": ("Pages", "pages", "dashicons-admin-page", [], True),
    "attachment": ("Media", "media", "dashicons-admin-media", [], False),
}


def _collection(type_: str, title: str, listing: Sequence[str], writing: Sequence[str], props: Sequence[str]) -> dict[str, Any]:
    return {"type": type_, "title": title, "endpoints": [(("GET",), listing), (("POST",), writing)], "props": props}


def _item(type_: str, title: str, writing: Sequence[str], props: Sequence[str]) -> dict[str, Any]:
    return {"type": type_, "title": title, "props": props, "endpoints": [
        (("GET",), ("id", "context", "password")), (("POST", "PUT", "PATCH"), ("id", *writing)),
        (("DELETE",), ("id", "force"))]}


_POST_PROPS = (*_COMMON, "format", "sticky", "categories", "tags")
_PAGE_PROPS = (*_COMMON, "parent", "menu_order")
_MEDIA_PROPS = (*(p for p in _COMMON if p not in ("password", "content", "excerpt", "featured_media")), "alt_text",
                "caption", "description", "media_type", "mime_type", "media_details", "post", "source_url",
                "missing_image_sizes")
_ROUTES: list[tuple[re.Pattern[str], dict[str, Any]]] = [
    (re.compile(r"^/wp/v2/posts/?$"), _collection("post", "post", _POST_LIST, _POST_WRITE, _POST_PROPS)),
    (re.compile(r"^/wp/v2/posts/\d+/?$"), _item("post", "post", _POST_WRITE, _POST_PROPS)),
    (re.compile(r"^/wp/v2/pages/?$"), _collection("page", "page", _PAGE_LIST, _PAGE_WRITE, _PAGE_PROPS)),
    (re.compile(r"^/wp/v2/pages/\d+/?$"), _item("page", "page", _PAGE_WRITE, _PAGE_PROPS)),
    (re.compile(r"^/wp/v2/media/?$"), _collection("attachment", "attachment", _MEDIA_LIST, _MEDIA_WRITE, _MEDIA_PROPS)),
    (re.compile(r"^/wp/v2/media/\d+/?$"), _item("attachment", "attachment", _MEDIA_WRITE, _MEDIA_PROPS)),
]


class Discovery:
    def __init__(self, api: Api, site_name: str) -> None:
        self._api = api
        self._site_name = site_name

    def index(self, request: Request) -> Response:
        site = self._api.site.url
        return self._api.respond(request, 200, {
            "name": self._site_name, "description": "", "url": site, "home": site,
            "gmt_offset": 0, "timezone_string": "", "namespaces": list(NAMESPACES),
            "authentication": {"application-passwords": {"endpoints": {
                "authorization": f"{site}/wp-admin/authorize-application.php"}}},
            "routes": {}, "_links": {"help": [{"href": "https://developer.wordpress.org/rest-api/"}]},
        })

    def namespace(self, request: Request) -> Response:
        return self._api.respond(request, 200, {"namespace": "wp/v2", "routes": {}})

    def types(self, request: Request) -> Response:
        return self._api.respond(request, 200, {slug: self._type(slug) for slug in _TYPES})

    def type(self, request: Request, slug: str) -> Response:
        if slug not in _TYPES:
            raise WPError("rest_type_invalid", "Invalid post type.", 404)
        return self._api.respond(request, 200, self._type(slug))

    def _type(self, slug: str) -> dict[str, Any]:
        name, base, icon, taxonomies, hierarchical = _TYPES[slug]
        return {"description": "", "hierarchical": hierarchical, "has_archive": False, "name": name, "slug": slug,
                "icon": icon, "taxonomies": taxonomies, "rest_base": base, "rest_namespace": "wp/v2",
                "_links": {"collection": [{"href": self._api.site.rest_url("/wp/v2/types")}],
                           "wp:items": [{"href": self._api.site.rest_url(f"/wp/v2/{base}")}]}}

    def options(self, request: Request, route: str, methods: Sequence[str]) -> Response:
        """``OPTIONS <route>``: ``methods`` are those the route table has for it (empty: no route)."""
        if not methods:
            return self._api.respond(request, 200, [])
        entry = next((e for pattern, e in _ROUTES if pattern.match(route)), None)
        namespace = "/".join(route.strip("/").split("/")[:2])  # "/wp/v2/posts/5" -> "wp/v2"
        body: dict[str, Any] = {"namespace": namespace, "methods": list(methods)}
        if entry is None:
            body["endpoints"] = [{"methods": list(methods), "args": {}}]
            return self._api.respond(request, 200, body)
        endpoints = []
        for verbs, args in entry["endpoints"]:
            names = [a for a in args if a != "operation_key"]
            if verbs == ("GET",) and len(args) > 3 and self._api.operation_key_query:
                names.append("operation_key")
            endpoints.append({"methods": list(verbs), "args": {a: {"required": a == "id"} for a in names}})
        body["endpoints"] = endpoints
        body["schema"] = {"$schema": "http://json-schema.org/draft-04/schema#", "title": entry["title"],
                          "type": "object", "properties": {p: {} for p in entry["props"]}, "links": []}
        return self._api.respond(request, 200, body)
