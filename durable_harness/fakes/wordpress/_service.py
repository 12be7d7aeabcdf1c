"""``WordPressFake``: the fake WordPress site as the gate sees it (the ``Service`` protocol).

It owns the state machine, the accounts and the route table, and adds what sits in front of the
REST API: the ``/wp-json`` prefix (or ``?rest_route=``), ``_method`` / ``X-HTTP-Method-Override``
(honoured on any method, as core does: ``GET …?_method=DELETE`` trashes), ``HEAD`` answered as
``GET`` without a body, and the uploaded files under ``/wp-content/uploads/``. It also exposes the
harness's controls (revoke or issue an application password; write as the site's other editor,
which is how a busy site is seeded and edited, see ``_busy``) and the ground truth the candidate
cannot see (``truth()``).

Options: ``auth_mode`` (``core`` or ``early``), ``operation_key_query`` (whether the must-use plugin
that filters listings by ``operation_key`` is installed; without it the parameter is ignored and a
lookup gets the unfiltered listing), ``upload_max_filesize`` and ``post_max_size`` in bytes (PHP's
defaults, 2 MiB and 8 MiB).

What it deliberately does not do: network I/O, faults (the gate injects them), or the public
HTML site.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from typing import Any
from urllib.parse import urlsplit

from durable_harness.wire import Request, Response
from durable_harness.fakes.wordpress._api import Api
from durable_harness.fakes.wordpress._auth import Accounts
from durable_harness.fakes.wordpress._routes import AUTH_MODES, Routes
from durable_harness.fakes.wordpress._images import check_type, dimensions, sanitize_file_name
from durable_harness.fakes.wordpress._intent import Intent, read_intent
from durable_harness.fakes.wordpress._records import Clock, Item, MediaFile, PostChange
from durable_harness.fakes.wordpress._state import WordPressState
from durable_harness.fakes.wordpress._wire import Site

__all__ = ["WordPressFake"]

_NOT_FOUND_HTML = b"<!DOCTYPE html><html><head><title>Page not found</title></head><body><h1>Not Found</h1></body></html>"


class WordPressFake:
    """Core WordPress + the operation-key must-use plugins + Rank Math, with one editor user."""

    name = "wordpress"
    root = "/wp-json"

    def __init__(self, clock: Clock, *, username: str = "editor", app_password: str = "abcd EFGH ijkl MNOP qrst UVWX",
                 auth_mode: str = "core", site_url: str = "http://wordpress.dh.test", operation_key_query: bool = True,
                 upload_max_filesize: int = 2 * 1024 * 1024, post_max_size: int = 8 * 1024 * 1024) -> None:
        if auth_mode not in AUTH_MODES:
            raise ValueError(f"auth_mode={auth_mode!r} must be one of {AUTH_MODES!r}: 'core' runs bad credentials "
                             "anonymously (WordPress alone), 'early' answers 401 (a plugin resolving the user early)")
        parts = urlsplit(site_url)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path.strip("/") or parts.query:
            raise ValueError(f"site_url={site_url!r} must be a scheme and host only, e.g. 'http://wordpress.dh.test'")
        self.host = parts.hostname
        self.auth_mode = auth_mode
        self._clock = clock
        self._site = Site(site_url.rstrip("/"))
        self._state = WordPressState(clock)
        self._accounts = Accounts(clock, username, app_password, email_domain=self.host)
        self._api = Api(self._site, self._state, self._accounts, operation_key_query=operation_key_query,
                        upload_max_filesize=upload_max_filesize, post_max_size=post_max_size)
        self._routes = Routes(self._api, auth_mode, site_name="Durable Harness")

    # -- the Service protocol ------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        method = request.method
        override = request.arg("_method") or request.header("x-http-method-override")
        if override:
            method = override.upper()
        if request.path.startswith("/wp-content/uploads/"):
            return self._upload_file(request.path, head=method == "HEAD")
        if request.path == self.root or request.path.startswith(self.root + "/"):
            route = request.path[len(self.root):] or "/"
        elif request.arg("rest_route") is not None:
            route = request.arg("rest_route") or "/"
        else:
            return Response(404, {"content-type": "text/html; charset=UTF-8"}, _NOT_FOUND_HTML)
        query = tuple((k, v) for k, v in request.query if k not in ("rest_route", "_method"))
        inner = dataclasses.replace(request, method="GET" if method == "HEAD" else method, path=route, query=query)
        response = self._routes.dispatch(inner)
        return dataclasses.replace(response, body=b"") if method == "HEAD" else response

    def mutations(self) -> int:
        return self._state.mutations + self._accounts.changes

    def credential(self, request: Request) -> str | None:
        return self._accounts.identify(request.header("authorization")).label

    def intent(self, request: Request) -> Intent:
        """What ``request`` asks of the site, read as the routes would read it, without doing it
        (``_intent``): the harness names requests by what they do to the world."""
        return read_intent(self._state, request, self.root)

    # -- the harness's controls --------------------------------------------------------------
    def revoke_app_password(self, number: int | None = None) -> list[int]:
        """Revoke application password ``number`` (1 is the one given at construction), or all in force."""
        return self._accounts.revoke(number)

    def issue_app_password(self) -> str:
        """Issue a new application password (labelled #2, #3, ...) and return it in display form."""
        return self._accounts.issue()

    # Writes by the site's people, not through the API (the dashboard): how a busy site is seeded and
    # kept busy. ``by`` labels the write in the ground truth; ``author`` 2 is the colleague.
    def write_post(self, *, title: str, content: str, status: str, by: str, author: int, excerpt: str = "",
                   date: _dt.datetime | None = None, operation_key: str | None = None) -> int:
        meta = {"operation_key": operation_key} if operation_key is not None else None
        change = PostChange(title=title, content=content, excerpt=excerpt, status=status, date=date, meta=meta)
        item, late_error = self._state.create_post(change, by=by, author=author)
        if late_error is not None:
            raise late_error
        return item.id

    def edit_post(self, post_id: int, *, by: str, title: str | None = None, excerpt: str | None = None,
                  status: str | None = None, content: str | None = None) -> bool:
        """Edit a live post; False if there is none with that id."""
        item = self._state.get(post_id, "post")
        if item is None:
            return False
        self._state.update(item, PostChange(title=title, excerpt=excerpt, status=status, content=content), by=by)
        return True

    def write_media(self, *, filename: str, data: bytes, by: str, author: int, title: str | None = None,
                    operation_key: str | None = None) -> int:
        checked = check_type(sanitize_file_name(filename), data)
        if checked is None:
            raise ValueError(f"write_media(filename={filename!r}): not a file type the site accepts")
        name, mime = checked
        width, height = dimensions(data, mime)
        meta = {"operation_key": operation_key} if operation_key is not None else None
        item, _ = self._state.upload(MediaFile(name, filename, "", mime, data, width, height),
                                     PostChange(title=title, meta=meta), by=by, author=author)
        return item.id

    # -- ground truth ------------------------------------------------------------------------
    def truth(self) -> dict[str, Any]:
        """Everything ever created, with who made it and when; plain JSON in a stable order."""
        return {
            "site_url": self._site.url,
            "auth_mode": self.auth_mode,
            "posts": [self._post_truth(i) for i in self._state.records("post")],
            "media": [self._media_truth(i) for i in self._state.records("attachment")],
            "app_passwords": self._accounts.truth(),
            "requests": dict(sorted(self._routes.counts.items())),
            "mutations": self._state.mutations,
        }

    @staticmethod
    def _lifecycle(item: Item) -> dict[str, Any]:
        return {
            "meta": {"operation_key": item.meta_value("operation_key")},
            "rank_math": dict(sorted(item.rank_math.items())),
            "created_at": item.created_at,
            "created_by": item.created_by,
            "updated_at": item.updated_at,
            "updates": item.updates,
            "deleted": not item.live,
            "deleted_at": item.deleted_at,
            "events": [dict(e) for e in item.events],
        }

    def _post_truth(self, item: Item) -> dict[str, Any]:
        return {
            "id": item.id, "status": item.status, "title": item.title, "content": item.content,
            "excerpt": item.excerpt, "slug": item.slug, "date": item.date.strftime("%Y-%m-%dT%H:%M:%S"),
            "featured_media": item.featured_media, "revisions": item.revisions,
            "published_at": item.published_at, "trashed_at": item.trashed_at, **self._lifecycle(item),
        }

    def _media_truth(self, item: Item) -> dict[str, Any]:
        assert item.file is not None
        return {
            "id": item.id, "filename": item.file.name, "original_filename": item.file.original_name,
            "path": item.file.relative, "mime_type": item.file.mime, "sha256": item.file.sha256,
            "size": len(item.file.data), "width": item.file.width, "height": item.file.height,
            "title": item.title, "alt_text": item.alt_text, "caption": item.excerpt, "description": item.content,
            "post": item.parent or None, **self._lifecycle(item),
        }

    def _upload_file(self, path: str, *, head: bool) -> Response:
        relative = path[len("/wp-content/uploads/"):]
        for item in self._state.live("attachment"):
            if item.file is not None and item.file.relative == relative:
                body = b"" if head else item.file.data
                return Response(200, {"content-type": item.file.mime, "content-length": str(len(item.file.data))}, body)
        return Response(404, {"content-type": "text/html; charset=UTF-8"}, _NOT_FOUND_HTML)
