"""The REST route table of the fake site, and the steps every request goes through.

Each route is wrapped so that, in order: the request is counted under its route pattern (the
``requests`` counters of the ground truth); with ``auth_mode="early"`` bad credentials fail with
401 before anything else (as when a plugin resolves the user early), while with ``"core"`` they
silently make the request anonymous; the handler runs; a ``WPError`` becomes its JSON body. An
unknown path or method is 404 ``rest_no_route`` (after the early auth check, as in core).

What it deliberately does not do: serve anything outside the REST API (``_service`` handles
uploads and the path prefix), batch requests, or the full discovery index.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from fakes._http import Request, Response, Router
from fakes.wordpress._api import Api
from fakes.wordpress._errors import WPError, no_route
from fakes.wordpress._media import MediaRoutes
from fakes.wordpress._params import Validator, request_params
from fakes.wordpress._posts import PostRoutes
from fakes.wordpress._query import CONTEXTS
from fakes.wordpress._rankmath import RankMathRoutes

__all__ = ["AUTH_MODES", "Routes"]

AUTH_MODES = ("core", "early")
_NAMESPACES = ("oembed/1.0", "rankmath/v1", "wp/v2", "wp-site-health/v1")


class Routes:
    def __init__(self, api: Api, auth_mode: str, site_name: str) -> None:
        self._api = api
        self._early = auth_mode == "early"
        self._site_name = site_name
        self.counts: Counter[str] = Counter()
        self._router = Router(not_found=self._not_found)
        posts, media, rank_math = PostRoutes(api), MediaRoutes(api), RankMathRoutes(api)
        self._add("GET", "", self._index)
        self._add("GET", "/wp/v2", self._namespace)
        self._add("GET", "/wp/v2/posts", posts.list)
        self._add("POST", "/wp/v2/posts", posts.create)
        self._add("GET", "/wp/v2/posts/{id}", posts.get)
        self._add(("POST", "PUT", "PATCH"), "/wp/v2/posts/{id}", posts.update)
        self._add("DELETE", "/wp/v2/posts/{id}", posts.delete)
        self._add("GET", "/wp/v2/media", media.list)
        self._add("POST", "/wp/v2/media", media.create)
        self._add("GET", "/wp/v2/media/{id}", media.get)
        self._add(("POST", "PUT", "PATCH"), "/wp/v2/media/{id}", media.update)
        self._add("DELETE", "/wp/v2/media/{id}", media.delete)
        self._add("GET", "/wp/v2/users/me", self._me)
        self._add("POST", "/rankmath/v1/updateMeta", rank_math.update_meta)

    def dispatch(self, request: Request) -> Response:
        """``request.path`` is the REST route (below ``/wp-json``), e.g. ``/wp/v2/posts``."""
        return self._router.dispatch(request)

    def _add(self, methods: str | Sequence[str], pattern: str, handler: Callable[..., Response]) -> None:
        def run(request: Request, **groups: Any) -> Response:
            return self._run(f"{request.method} {pattern or '/'}", request, lambda: handler(request, **groups))

        self._router.add(methods, pattern, run)

    def _run(self, key: str, request: Request, call: Callable[[], Response]) -> Response:
        self.counts[key] += 1
        try:
            failure = self._api.identity(request).failure
            if self._early and failure is not None:
                raise failure
            return call()
        except WPError as error:
            return self._api.respond(request, error.status, error.body(), error=True)

    def _not_found(self, request: Request) -> Response:
        def fail() -> Response:
            raise no_route()

        return self._run(f"{request.method} (no route)", request, fail)

    # -- small routes ------------------------------------------------------------------------
    def _index(self, request: Request) -> Response:
        site = self._api.site.url
        return self._api.respond(request, 200, {
            "name": self._site_name, "description": "", "url": site, "home": site,
            "gmt_offset": 0, "timezone_string": "", "namespaces": list(_NAMESPACES),
            "authentication": {"application-passwords": {"endpoints": {
                "authorization": f"{site}/wp-admin/authorize-application.php"}}},
            "routes": {}, "_links": {"help": [{"href": "https://developer.wordpress.org/rest-api/"}]},
        })

    def _namespace(self, request: Request) -> Response:
        return self._api.respond(request, 200, {"namespace": "wp/v2", "routes": {}})

    def _me(self, request: Request) -> Response:
        params = request_params(request)
        v = Validator()
        context = v.enum("context", params.get("context", "view"), CONTEXTS) or "view"
        v.done()
        user = self._api.user(request)
        if user is None:
            raise WPError("rest_not_logged_in", "You are not currently logged in.", 401)
        return self._api.respond(request, 200, self._api.renderer.user(user, context))
