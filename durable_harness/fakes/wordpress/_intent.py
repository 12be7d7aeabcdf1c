"""What a request asks the site to do, read as the site reads it, without doing it.

The harness's fault triggers name requests by what they do to the world (``update:article``, the
upload of image 2), whatever their ordinal; this reads a request the way the routes would: the
``/wp-json`` prefix or ``?rest_route=``, ``_method`` / ``X-HTTP-Method-Override``, the parameters
in WordPress's order (JSON body, then form body, then query string, then the URL: an ``id`` in the
body names the item a ``/posts/<id>`` request acts on), the uploaded file's bytes.

``Intent.action`` is one of ``create`` (a new post or page), ``upload`` (a new attachment),
``update``, ``delete``, ``read`` (one item), ``list``, ``seo`` (Rank Math's meta of an item), or
``other``. ``item`` is the item acted on as it is now (None when it does not exist);
``content`` the new item's content; ``file_sha256`` the uploaded bytes' digest; ``status`` the
status the request sets.

What it deliberately does not do: validate, authenticate or change anything. A request the site
would refuse still has an intent (a fault may act on it before the site refuses it). Batch
requests (``/batch/v1``) are ``other``: their parts are not read.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from durable_harness.fakes.wordpress._api import rich_text
from durable_harness.fakes.wordpress._errors import WPError
from durable_harness.fakes.wordpress._params import as_int, request_params
from durable_harness.fakes.wordpress._records import Item
from durable_harness.fakes.wordpress._state import WordPressState
from durable_harness.wire import Request

__all__ = ["Intent", "item_record", "read_intent"]

_ITEM = re.compile(r"^/wp/v2/(posts|pages|media)/(\d+)/?$")
_COLLECTION = re.compile(r"^/wp/v2/(posts|pages|media)/?$")
_RANK_MATH = re.compile(r"^/rankmath/v1/updateMeta/?$")
_TYPES = {"posts": "post", "pages": "page", "media": "attachment"}
_WRITES = ("POST", "PUT", "PATCH")


@dataclass(frozen=True)
class Intent:
    action: str
    type: str | None = None
    item: Item | None = None
    content: str | None = None
    file_sha256: str | None = None
    status: str | None = None


def read_intent(state: WordPressState, request: Request, root: str) -> Intent:
    method = (request.arg("_method") or request.header("x-http-method-override") or request.method).upper()
    if request.path == root or request.path.startswith(root + "/"):
        route = request.path[len(root):] or "/"
    else:
        route = request.arg("rest_route") or ""
    try:
        params = request_params(request)
    except WPError:  # bad JSON: the site refuses it; it still asked for its route
        params = {}
    status = params.get("status") if isinstance(params.get("status"), str) else None
    item_match, collection = _ITEM.match(route), _COLLECTION.match(route)
    if item_match:
        type_ = _TYPES[item_match.group(1)]
        given = as_int(params.get("id")) if params.get("id") is not None else None
        item = state.get(given if given is not None else int(item_match.group(2)), type_)
        action = {"GET": "read", "HEAD": "read", "DELETE": "delete"}.get(method, "update" if method in _WRITES else "other")
        return Intent(action, type_, item, status=status)
    if collection:
        type_ = _TYPES[collection.group(1)]
        if method in ("GET", "HEAD"):
            return Intent("list", type_)
        if method != "POST":
            return Intent("other", type_)
        if type_ == "attachment":
            return Intent("upload", type_, file_sha256=_upload_digest(request), status=status)
        return Intent("create", type_, content=rich_text(params.get("content")), status=status)
    if _RANK_MATH.match(route) and method in _WRITES:
        object_id = as_int(params.get("objectID"))
        return Intent("seo", "post", state.get(object_id) if object_id is not None else None)
    return Intent("other")


def _upload_digest(request: Request) -> str | None:
    """The digest of the bytes an upload carries: the multipart ``file`` part, or the raw body."""
    if request.content_type == "multipart/form-data":
        _, files = request.form()
        part = files.get("file")
        return hashlib.sha256(part[2]).hexdigest() if part is not None else None
    return hashlib.sha256(request.body).hexdigest() if request.body else None


def item_record(item: Item) -> Mapping[str, Any]:
    """An item as ground truth shows it, for the fields that say whose it is."""
    record: dict[str, Any] = {"id": item.id, "content": item.content, "meta": {"operation_key": item.meta_value("operation_key")}}
    if item.file is not None:
        record["sha256"] = item.file.sha256
    return record
