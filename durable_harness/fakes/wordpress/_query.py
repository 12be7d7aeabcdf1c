"""Collection queries: ``GET /wp/v2/posts`` and ``GET /wp/v2/media`` parameters, matching, paging.

``parse_list`` validates the collection parameters in core's order (schema validation, then the
``status`` sanitizer that refuses non-public statuses to visitors, then the ``context=edit``
permission). ``select`` filters and sorts live items; ``paginate`` applies ``page``/``per_page``
/``offset`` and refuses a page past the end only when something matched; ``list_headers`` gives
``X-WP-Total``, ``X-WP-TotalPages`` and the prev/next ``Link`` values. The must-use plugin's
``operation_key`` parameter filters on that meta exactly (unless the site lacks that plugin:
then the parameter is ignored, as core ignores any parameter it does not know). Date ranges
(``after``, ``before``, ``modified_after``, ``modified_before``: exclusive, on the site-local
date), term filters (``categories``, ``tags`` and their ``_exclude``; the site has category 1 and
no tags), ``author_exclude``, ``sticky``, and for media ``parent_exclude``; a media ``search``
also matches the attached file's name (``_wp_attached_file``), as core does since 6.0. An
``offset`` past the end reports a total of 0, as ``WP_Query`` does when the page is empty.

What it deliberately does not do: relevance scoring (relevance sorts like date), ``tax_relation``
(one taxonomy filter is all the site can have), or ``search_columns`` as 6.1 does (the fake
follows 6.2 and later, which honour it).
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from durable_harness.fakes.wordpress._auth import User
from durable_harness.fakes.wordpress._errors import ParamErrors, WPError, auth_required
from durable_harness.fakes.wordpress._params import Validator, as_int, as_list
from durable_harness.fakes.wordpress._records import Item
from durable_harness.fakes.wordpress._text import collate, fold, sanitize_title
from durable_harness.fakes.wordpress._wire import Site

__all__ = ["CONTEXTS", "ListQuery", "list_headers", "paginate", "parse_list", "select"]

CONTEXTS = ("view", "embed", "edit")
_POST_STATUS_ENUM = ("publish", "future", "draft", "pending", "private", "trash", "auto-draft", "inherit",
                     "request-pending", "request-confirmed", "request-failed", "request-completed", "any")
_MEDIA_STATUS_ENUM = ("inherit", "private", "trash")
_ANY = {"publish", "future", "draft", "pending", "private", "inherit"}  # exclude_from_search is false
_ORDERBY = ("author", "date", "id", "include", "modified", "parent", "relevance", "slug", "include_slugs", "title")
_SEARCH_COLUMNS = {"post_title": "title", "post_content": "content", "post_excerpt": "excerpt"}
_MEDIA_TYPES = ("image", "video", "text", "application", "audio")


@dataclass(frozen=True)
class ListQuery:
    type: str
    context: str
    page: int
    per_page: int
    offset: int | None
    statuses: frozenset[str]
    search: str | None
    search_columns: tuple[str, ...]
    slugs: tuple[str, ...] | None
    include: tuple[int, ...] | None
    exclude: tuple[int, ...]
    authors: tuple[int, ...] | None
    parents: tuple[int, ...] | None
    media_types: tuple[str, ...] | None
    mime_type: str | None
    orderby: str
    order: str
    operation_key: str | None
    after: _dt.datetime | None = None
    before: _dt.datetime | None = None
    modified_after: _dt.datetime | None = None
    modified_before: _dt.datetime | None = None
    author_exclude: tuple[int, ...] = ()
    parent_exclude: tuple[int, ...] = ()
    categories: tuple[int, ...] | None = None
    categories_exclude: tuple[int, ...] = ()
    tags: tuple[int, ...] | None = None
    tags_exclude: tuple[int, ...] = ()
    sticky: bool | None = None


def _term_ids(v: Validator, name: str, value: Any) -> tuple[int, ...] | None:
    """A "Term ID List": ids, or ``{"terms": [...]}``; core's oneOf gives its own message."""
    if value is None:
        return None
    raw = value.get("terms", []) if isinstance(value, dict) else value
    for index, item in enumerate(as_list(raw)):
        if as_int(item) is None:
            message = f"{name} is not a valid Term ID List. Reason: {name}[{index}] is not of type integer."
            v.errors.add(name, "rest_no_matching_schema", message, {"position": 0})
            return None
    return tuple(int(as_int(i) or 0) for i in as_list(raw))


def parse_list(params: Mapping[str, Any], *, type_: str, user: User | None,
               operation_key_query: bool = True) -> ListQuery:
    """The collection query of ``type_`` (``post``, ``page`` or ``attachment``); parameters are
    validated in the order core registers them, so several errors are listed as core lists them."""
    v = Validator()
    media, posts = type_ == "attachment", type_ == "post"
    context = v.enum("context", params.get("context", "view"), CONTEXTS)
    page = v.integer("page", params.get("page", 1), minimum=1)
    per_page = v.integer("per_page", params.get("per_page", 10), minimum=1, maximum=100)
    search = v.string("search", params.get("search"))
    after = v.date("after", params.get("after"))
    modified_after = v.date("modified_after", params.get("modified_after"))
    authors = v.int_list("author", params.get("author"))
    author_exclude = v.int_list("author_exclude", params.get("author_exclude"))
    before = v.date("before", params.get("before"))
    modified_before = v.date("modified_before", params.get("modified_before"))
    exclude = v.int_list("exclude", params.get("exclude"))
    include = v.int_list("include", params.get("include"))
    offset = v.integer("offset", params.get("offset"))
    order = v.enum("order", params.get("order", "desc"), ("asc", "desc"))
    orderby = v.enum("orderby", params.get("orderby", "date"), (*_ORDERBY, "menu_order") if type_ == "page" else _ORDERBY)
    parents = v.int_list("parent", params.get("parent")) if type_ != "post" else None
    parent_exclude = v.int_list("parent_exclude", params.get("parent_exclude")) if type_ != "post" else None
    columns = v.enum_list("search_columns", params.get("search_columns"), tuple(_SEARCH_COLUMNS))
    slugs = v.str_list("slug", params.get("slug"))
    categories = _term_ids(v, "categories", params.get("categories")) if posts else None
    categories_exclude = _term_ids(v, "categories_exclude", params.get("categories_exclude")) if posts else None
    tags = _term_ids(v, "tags", params.get("tags")) if posts else None
    tags_exclude = _term_ids(v, "tags_exclude", params.get("tags_exclude")) if posts else None
    sticky = v.boolean("sticky", params.get("sticky")) if posts else None
    media_types = v.enum_list("media_type", params.get("media_type"), _MEDIA_TYPES) if media else None
    mime_type = v.string("mime_type", params.get("mime_type")) if media else None
    operation_key = v.string("operation_key", params.get("operation_key")) if operation_key_query else None
    v.done()
    statuses = _sanitize_statuses(params.get("status"), media=media, user=user)
    if context == "edit" and user is None:
        raise auth_required("rest_forbidden_context", "Sorry, you are not allowed to edit posts in this post type.", False)
    if orderby == "relevance" and not search:
        raise WPError("rest_no_search_term_defined", "You need to define a search term to order by relevance.", 400)
    if orderby == "include" and not include:
        raise WPError("rest_orderby_include_missing_include",
                      "You need to define an include parameter to order by include.", 400)
    return ListQuery(
        type=type_, context=context or "view", page=page or 1, per_page=per_page or 10, offset=offset,
        statuses=statuses, search=search or None, search_columns=tuple(columns or _SEARCH_COLUMNS),
        slugs=tuple(sanitize_title(s) for s in slugs) if slugs is not None else None,
        include=tuple(include) if include else None, exclude=tuple(exclude or ()),
        authors=tuple(authors) if authors else None, parents=tuple(parents) if parents is not None else None,
        media_types=tuple(media_types) if media_types else None, mime_type=mime_type or None, orderby=orderby or "date", order=order or "desc",
        operation_key=operation_key or None, after=after, before=before, modified_after=modified_after,
        modified_before=modified_before, author_exclude=tuple(author_exclude or ()),
        parent_exclude=tuple(parent_exclude or ()), categories=categories or None,
        categories_exclude=tuple(categories_exclude or ()), tags=tags or None, tags_exclude=tuple(tags_exclude or ()),
        sticky=sticky,
    )


def _sanitize_statuses(value: Any, *, media: bool, user: User | None) -> frozenset[str]:
    """``sanitize_post_statuses``: visitors get only the default; errors become ``rest_invalid_param``."""
    default = "inherit" if media else "publish"
    enum = _MEDIA_STATUS_ENUM if media else _POST_STATUS_ENUM
    statuses = [sanitize_title(str(s)) for s in as_list(value)] if value is not None else [default]
    errors = ParamErrors()
    for status in statuses:
        if status == default:
            continue
        if user is None:
            errors.add("status", "rest_forbidden_status", "Status is forbidden.", {"status": 401})
            break
        if status not in enum:
            listed = ", ".join(enum[:-1]) + ", and " + enum[-1]
            errors.add("status", "rest_not_in_enum", f"status[0] is not one of {listed}.")
            break
    errors.raise_if_any()
    chosen = set(statuses)
    if "any" in chosen:
        chosen |= _ANY
    return frozenset(chosen)


def _terms(search: str) -> list[str]:
    return [t.strip('"') for t in re.findall(r'"[^"]+"|\S+', search) if t.strip('"')]


def _matches_search(item: Item, q: ListQuery) -> bool:
    assert q.search is not None
    texts = [fold(getattr(item, _SEARCH_COLUMNS[c])) for c in q.search_columns]  # LIKE in the collation:
    if item.file is not None:  # core also searches the attached file's path ("2026/01/x.png")
        texts.append(fold(item.file.relative))  # case and accents do not count
    for term in _terms(fold(q.search)):
        negate = term.startswith("-") and len(term) > 1
        found = any(term.lstrip("-") in text for text in texts) if negate else any(term in text for text in texts)
        if found == negate:
            return False
    return True


def _matches(item: Item, q: ListQuery) -> bool:
    checks = (
        item.status in q.statuses,
        q.include is None or item.id in q.include,
        item.id not in q.exclude,
        q.slugs is None or item.slug in q.slugs,
        q.authors is None or item.author in q.authors,
        q.operation_key is None or _same_key(item.meta_value("operation_key"), q.operation_key),
        q.parents is None or item.parent in q.parents,
        q.media_types is None or (item.file is not None and item.file.mime.split("/")[0] in q.media_types),
        q.mime_type is None or (item.file is not None and (item.file.mime == q.mime_type
                                                           or item.file.mime.startswith(q.mime_type + "/"))),
    )
    return all(checks) and _matches_more(item, q) and (q.search is None or _matches_search(item, q))


def _same_key(stored: Any, wanted: str) -> bool:
    """The lookup plugin's ``meta_query`` trims the key asked for (PHP's ``trim``: spaces, tabs, line
    breaks) and compares it in the database's collation: case, accents and trailing spaces do not
    count (`` Job-1/v1/draft `` finds ``job-1/v1/draft``); a stored key's leading spaces do, so a key
    stored with them is never found."""
    return isinstance(stored, str) and collate(stored) == collate(wanted.strip(" \t\n\r\0\x0b"))


def _matches_more(item: Item, q: ListQuery) -> bool:
    """Date ranges (exclusive, as ``WP_Date_Query`` without ``inclusive``), exclusions, terms, sticky."""
    return ((q.after is None or _naive(item.date) > _naive(q.after))
            and (q.before is None or _naive(item.date) < _naive(q.before))
            and (q.modified_after is None or _naive(item.modified) > _naive(q.modified_after))
            and (q.modified_before is None or _naive(item.modified) < _naive(q.modified_before))
            and item.author not in q.author_exclude and item.parent not in q.parent_exclude
            and (q.categories is None or bool(set(item.categories) & set(q.categories)))
            and not set(item.categories) & set(q.categories_exclude)
            and q.tags is None  # the site has no tags: a tag filter matches nothing
            and (q.sticky is None or item.sticky == q.sticky))


def _naive(value: _dt.datetime) -> _dt.datetime:
    return value.astimezone(_dt.timezone.utc).replace(tzinfo=None)


def select(items: Sequence[Item], q: ListQuery) -> list[Item]:
    matched = [i for i in items if _matches(i, q)]
    keys: dict[str, Callable[[Item], Any]] = {
        "author": lambda i: (i.author, i.id), "date": lambda i: (i.date, i.id), "id": lambda i: i.id,
        "modified": lambda i: (i.modified, i.id), "parent": lambda i: (i.parent, i.id),
        "relevance": lambda i: (i.date, i.id), "slug": lambda i: (i.slug, i.id),
        "title": lambda i: (i.title.lower(), i.id), "menu_order": lambda i: (i.menu_order, i.id),
    }
    if q.orderby == "include" and q.include:
        return sorted(matched, key=lambda i: q.include.index(i.id) if q.include else 0)
    if q.orderby == "include_slugs" and q.slugs:
        return sorted(matched, key=lambda i: q.slugs.index(i.slug) if q.slugs else 0)
    return sorted(matched, key=keys.get(q.orderby, keys["date"]), reverse=q.order == "desc")


def paginate(matched: Sequence[Item], q: ListQuery) -> tuple[list[Item], int, int]:
    """(items of the page, total, total pages); 400 past the last page only if something matched.

    The total is ``WP_Query``'s ``found_posts``: every match, but 0 when the page came back empty
    (an ``offset`` past the end); a page past the end is counted again as page 1 first, as the
    controller does, which is where its 400 comes from."""

    def window(page: int) -> list[Item]:
        start = q.offset if q.offset is not None else (page - 1) * q.per_page
        return list(matched[max(start, 0):max(start, 0) + q.per_page])

    items = window(q.page)
    total = len(matched) if items else 0
    if total < 1 and q.page > 1:
        total = len(matched) if window(1) else 0
    pages = math.ceil(total / q.per_page)
    if q.page > pages and total > 0:
        raise WPError("rest_post_invalid_page_number",
                      "The page number requested is larger than the number of pages available.", 400)
    return items, total, pages


def list_headers(site: Site, route: str, query: Sequence[tuple[str, str]], q: ListQuery, total: int,
                 pages: int) -> tuple[dict[str, str], list[str]]:
    """``X-WP-Total``/``X-WP-TotalPages`` and the ``Link`` values for prev/next (with the request's query)."""

    def page_url(number: int) -> str:  # add_query_arg: replace ``page`` in place, or append it
        pairs: list[tuple[str, str]] = []
        for key, value in query:
            if key != "page":
                pairs.append((key, value))
            elif ("page", str(number)) not in pairs:
                pairs.append(("page", str(number)))
        if ("page", str(number)) not in pairs:
            pairs.append(("page", str(number)))
        return site.rest_url(route) + "?" + urlencode(pairs)

    links = []
    if q.page > 1:
        links.append(f'<{page_url(min(q.page - 1, pages))}>; rel="prev"')
    if pages > q.page:
        links.append(f'<{page_url(q.page + 1)}>; rel="next"')
    return {"X-WP-Total": str(total), "X-WP-TotalPages": str(pages)}, links
