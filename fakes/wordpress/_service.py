"""``WordPressFake``: the fake WordPress site as the gate sees it (the ``Service`` protocol).

It owns the state machine, the accounts and the route table, and adds what sits in front of the
REST API: the ``/wp-json`` prefix (or ``?rest_route=``), ``_method`` / ``X-HTTP-Method-Override``,
``HEAD`` answered as ``GET`` without a body, and the uploaded files under ``/wp-content/uploads/``.
It also exposes the harness's controls (revoke or issue an application password) and the ground
truth the candidate cannot see (``truth()``).

What it deliberately does not do: network I/O, faults (the gate injects them), or the public
HTML site.
"""

from __future__ import annotations

import dataclasses
from typing import Any
from urllib.parse import urlsplit

from fakes._http import Request, Response
from fakes.wordpress._api import Api
from fakes.wordpress._auth import Accounts
from fakes.wordpress._routes import AUTH_MODES, Routes
from fakes.wordpress._state import Clock, Item, WordPressState
from fakes.wordpress._wire import Site

__all__ = ["WordPressFake"]

_NOT_FOUND_HTML = b"<!DOCTYPE html><html><head><title>Page not found</title></head><body><h1>Not Found</h1></body></html>"


class WordPressFake:
    """Core WordPress + the operation-key must-use plugins + Rank Math, with one editor user."""

    name = "wordpress"
    root = "/wp-json"

    def __init__(self, clock: Clock, *, username: str = "editor", app_password: str = "abcd EFGH ijkl MNOP qrst UVWX",
                 auth_mode: str = "core", site_url: str = "http://wordpress.dh.test") -> None:
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
        self._api = Api(self._site, self._state, self._accounts)
        self._routes = Routes(self._api, auth_mode, site_name="Durable Harness")

    # -- the Service protocol ------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        method = request.method
        override = request.arg("_method") or request.header("x-http-method-override")
        if method == "POST" and override:
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
        return self._state.mutations

    def credential(self, request: Request) -> str | None:
        return self._accounts.identify(request.header("authorization")).label

    # -- the harness's controls --------------------------------------------------------------
    def revoke_app_password(self, number: int | None = None) -> list[int]:
        """Revoke application password ``number`` (1 is the one given at construction), or all in force."""
        return self._accounts.revoke(number)

    def issue_app_password(self) -> str:
        """Issue a new application password (labelled #2, #3, ...) and return it in display form."""
        return self._accounts.issue()

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
