"""The REST route table of the fake site, and the steps every request goes through.

Each route is wrapped so that, in order: the request is counted under its route pattern (the
``requests`` counters of the ground truth); with ``auth_mode="early"`` bad credentials fail with
401 before anything else (as when a plugin resolves the user early), while with ``"core"`` they
silently make the request anonymous; the handler runs; a ``WPError`` becomes its JSON body. An
unknown path or method is 404 ``rest_no_route`` (after the early auth check, as in core).
``OPTIONS`` on a route describes it (``_discovery``); a successful answer carries ``Allow`` with
the route's methods (only ``GET`` for a visitor, as core lists the methods whose permission check
passes, approximately).

What it deliberately does not do: serve anything outside the REST API (``_service`` handles
uploads, the path prefix and method overrides), or shape bodies (``_api``: ``_embed``, ``_fields``).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from durable_harness.fakes._http import Router
from durable_harness.wire import Request, Response
from durable_harness.fakes.wordpress._api import Api
from durable_harness.fakes.wordpress._batch import BatchRoute
from durable_harness.fakes.wordpress._discovery import Discovery
from durable_harness.fakes.wordpress._errors import WPError, no_route
from durable_harness.fakes.wordpress._media import MediaRoutes
from durable_harness.fakes.wordpress._posts import PostRoutes
from durable_harness.fakes.wordpress._rankmath import RankMathRoutes
from durable_harness.fakes.wordpress._revisions import RevisionRoutes
from durable_harness.fakes.wordpress._terms import TermRoutes
from durable_harness.fakes.wordpress._users import UserRoutes

__all__ = ["AUTH_MODES", "Routes"]

AUTH_MODES = ("core", "early")
_ITEM = ("POST", "PUT", "PATCH")


class Routes:
    def __init__(self, api: Api, auth_mode: str, site_name: str) -> None:
        self._api = api
        self._early = auth_mode == "early"
        self.counts: Counter[str] = Counter()
        self._router = Router(not_found=self._not_found)
        self._table: list[tuple[re.Pattern[str], tuple[str, ...]]] = []
        self._discovery = Discovery(api, site_name)
        d = self._discovery
        self._add("GET", "", d.index)
        self._add("GET", "/wp/v2", d.namespace)
        self._add("GET", "/wp/v2/types", d.types)
        self._add("GET", "/wp/v2/types/{slug}", d.type)
        for type_, base in (("post", "posts"), ("page", "pages")):
            items, revisions = PostRoutes(api, type_, f"/wp/v2/{base}"), RevisionRoutes(api, type_, f"/wp/v2/{base}")
            self._add("GET", f"/wp/v2/{base}", items.list)
            self._add("POST", f"/wp/v2/{base}", items.create)
            self._add("GET", f"/wp/v2/{base}/{{id}}", items.get)
            self._add(_ITEM, f"/wp/v2/{base}/{{id}}", items.update)
            self._add("DELETE", f"/wp/v2/{base}/{{id}}", items.delete)
            self._add("GET", f"/wp/v2/{base}/{{parent}}/revisions", revisions.list)
            self._add("GET", f"/wp/v2/{base}/{{parent}}/revisions/{{id}}", revisions.get)
        media, rank_math, terms, users = MediaRoutes(api), RankMathRoutes(api), TermRoutes(api), UserRoutes(api)
        self._add("GET", "/wp/v2/media", media.list)
        self._add("POST", "/wp/v2/media", media.create)
        self._add("GET", "/wp/v2/media/{id}", media.get)
        self._add(_ITEM, "/wp/v2/media/{id}", media.update)
        self._add("DELETE", "/wp/v2/media/{id}", media.delete)
        self._add("GET", "/wp/v2/categories", terms.list_categories)
        self._add("GET", "/wp/v2/categories/{id}", terms.get_category)
        self._add("GET", "/wp/v2/tags", terms.list_tags)
        self._add("GET", "/wp/v2/tags/{id}", terms.get_tag)
        self._add("GET", "/wp/v2/users", users.list)
        self._add("GET", "/wp/v2/users/me", users.me)
        self._add("GET", "/wp/v2/users/{who}/application-passwords", users.list_passwords)
        self._add("POST", "/wp/v2/users/{who}/application-passwords", users.create_password)
        self._add("DELETE", "/wp/v2/users/{who}/application-passwords/{uuid}", users.delete_password)
        self._add("GET", "/wp/v2/users/{who}/application-passwords/introspect", users.introspect_password)
        self._add("GET", "/wp/v2/users/{who}/application-passwords/{uuid}", users.get_password)
        self._add("POST", "/wp/v2/users/{who}/application-passwords/{uuid}", users.rename_password)
        self._add("GET", "/wp/v2/users/{id}", users.get)
        self._add("POST", "/rankmath/v1/updateMeta", rank_math.update_meta)
        self._add("POST", "/batch/v1", BatchRoute(api, self.dispatch).run)

    def dispatch(self, request: Request) -> Response:
        """``request.path`` is the REST route (below ``/wp-json``), e.g. ``/wp/v2/posts``."""
        if request.method == "OPTIONS":
            return self._options(request)
        return self._router.dispatch(request)

    def methods(self, route: str) -> tuple[str, ...]:
        """Every method some route of the table answers on ``route``, in core's order."""
        found = {m for regex, methods in self._table if regex.match(route) for m in methods}
        return tuple(m for m in ("GET", "POST", "PUT", "PATCH", "DELETE") if m in found)

    def _add(self, methods: str | Sequence[str], pattern: str, handler: Callable[..., Response]) -> None:
        def run(request: Request, **groups: Any) -> Response:
            response = self._run(f"{request.method} {pattern or '/'}", request, lambda: handler(request, **groups))
            return self._with_allow(request, response)

        self._router.add(methods, pattern, run)
        regex = "^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "/?$"
        self._table.append((re.compile(regex), (methods,) if isinstance(methods, str) else tuple(methods)))

    def _with_allow(self, request: Request, response: Response) -> Response:
        if response.status >= 400 or "allow" in response.headers:
            return response
        methods = self.methods(request.path)
        if self._api.user(request) is None:
            methods = tuple(m for m in methods if m == "GET")
        return dataclasses.replace(response, headers={**response.headers, "allow": ", ".join(methods)})

    def _run(self, key: str, request: Request, call: Callable[[], Response]) -> Response:
        self.counts[key] += 1
        try:
            failure = self._api.identity(request).failure
            if self._early and failure is not None:
                raise failure
            return call()
        except WPError as error:
            return self._api.respond(request, error.status, error.body(), error=True)

    def _options(self, request: Request) -> Response:
        methods = self.methods(request.path)
        response = self._run("OPTIONS (route)" if methods else "OPTIONS (no route)", request,
                             lambda: self._discovery.options(request, request.path, methods))
        return self._with_allow(request, response) if methods else response

    def _not_found(self, request: Request) -> Response:
        def fail() -> Response:
            raise no_route()

        return self._run(f"{request.method} (no route)", request, fail)
