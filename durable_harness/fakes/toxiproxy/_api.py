"""Toxiproxy's HTTP API 2.x over the proxies of one server: the routes, their statuses and bodies.

Routes (as Toxiproxy's router has them; anything else is 404 ``404 page not found``, a known path
with another method 405 with an empty body)::

    GET  /proxies                      200 {name: proxy}
    POST /proxies                      201 proxy           400 missing field · 409 exists · 500 bind error
    POST /populate                     201 {"proxies": [...]}  (an error partway: its status, with the
                                                            proxies made so far; those stay)
    GET  /proxies/{p}                  200 proxy           404 proxy not found
    POST|PATCH /proxies/{p}            200 proxy           (listen, upstream, enabled; a change of
                                                            listen or upstream restarts it)
    DELETE /proxies/{p}                204
    GET|POST /proxies/{p}/toxics       200 [toxic] | toxic 400 stream / type · 409 exists
    GET|POST|PATCH|DELETE /proxies/{p}/toxics/{t}          404 toxic not found
    POST /reset                        204                 (every proxy enabled, every toxic removed)
    GET  /version                      200 {"version": "2.12.0"}

Errors are ``{"error": ..., "status": ...}`` and a newline, sent as text/plain (Go's ``http.Error``).
Every response carries ``X-Toxiproxy-Request-Id``; a ``Mozilla/`` user agent gets 403; a request
still unanswered after ``HANDLER_TIMEOUT_S`` gets 503 with an empty body. Requests are handled one
at a time (a lock), as Toxiproxy's collection lock serialises changes.

What it deliberately does not do: ``/metrics`` (404, as a server started without metrics flags),
HTTP framing (``_http``), or body validation (``_model``).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from durable_harness.fakes.toxiproxy._http import HttpRequest, HttpResponse
from durable_harness.fakes.toxiproxy._model import (VERSION, ApiError, ProxyInput, go_json, parse_populate, parse_proxy_create,
                                    parse_proxy_update, parse_toxic_create, parse_toxic_update)
from durable_harness.fakes.toxiproxy._proxy import Proxy

__all__ = ["Api"]

HANDLER_TIMEOUT_S = 25.0
_TEXT = {"Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff"}

Route = Callable[..., Awaitable[HttpResponse]]


def _json(status: int, value: Any) -> HttpResponse:
    return HttpResponse(status, go_json(value), {"Content-Type": "application/json"})


def _error(error: ApiError) -> HttpResponse:
    return HttpResponse(error.status, go_json(error.shape()) + b"\n", dict(_TEXT))


class Api:
    """The API of one server; ``proxies`` is the server's live registry, ``new_proxy`` builds one."""

    def __init__(self, proxies: dict[str, Proxy], new_proxy: Callable[[ProxyInput], Proxy],
                 request_ids: Iterator[str]) -> None:
        self._proxies = proxies
        self._new_proxy = new_proxy
        self._request_ids = request_ids
        self._lock = asyncio.Lock()
        self._routes: list[tuple[re.Pattern[str], dict[str, Route]]] = []
        table: list[tuple[str, dict[str, Route]]] = [
            ("/reset", {"POST": self._reset}),
            ("/proxies", {"GET": self._index, "POST": self._create}),
            ("/populate", {"POST": self._populate}),
            ("/proxies/{proxy}", {"GET": self._show, "POST": self._update, "PATCH": self._update,
                                  "DELETE": self._delete}),
            ("/proxies/{proxy}/toxics", {"GET": self._toxic_index, "POST": self._toxic_create}),
            ("/proxies/{proxy}/toxics/{toxic}", {"GET": self._toxic_show, "POST": self._toxic_update,
                                                 "PATCH": self._toxic_update, "DELETE": self._toxic_delete}),
            ("/version", {"GET": self._version}),
        ]
        for pattern, methods in table:
            regex = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "$")
            self._routes.append((regex, methods))

    async def handle(self, request: HttpRequest) -> HttpResponse:
        response = await self._dispatch(request)
        return HttpResponse(response.status, response.body,
                            {**response.headers, "X-Toxiproxy-Request-Id": next(self._request_ids)})

    async def _dispatch(self, request: HttpRequest) -> HttpResponse:
        if request.headers.get("user-agent", "").startswith("Mozilla/"):
            return HttpResponse(403, b"User agent not allowed\n", dict(_TEXT))
        for regex, methods in self._routes:
            match = regex.match(request.path)
            if match is None:
                continue
            route = methods.get(request.method)
            if route is None:
                return HttpResponse(405)
            try:
                async with asyncio.timeout(HANDLER_TIMEOUT_S):
                    async with self._lock:
                        return await route(request, **match.groupdict())
            except ApiError as error:
                return _error(error)
            except TimeoutError:
                return HttpResponse(503)
            except Exception as exc:  # a bug here answers like Toxiproxy's unexpected errors, not a dead socket
                return _error(ApiError(500, f"{type(exc).__name__}: {exc}"))
        return HttpResponse(404, b"404 page not found\n", dict(_TEXT))

    def _proxy(self, name: str) -> Proxy:
        proxy = self._proxies.get(name)
        if proxy is None:
            raise ApiError(404, "proxy not found")
        return proxy

    # -- proxies ----------------------------------------------------------------------------------------
    async def _index(self, request: HttpRequest) -> HttpResponse:
        return _json(200, {name: proxy.shape() for name, proxy in self._proxies.items()})

    async def _create(self, request: HttpRequest) -> HttpResponse:
        wanted = parse_proxy_create(request.body)
        if wanted.name in self._proxies:
            raise ApiError(409, "proxy already exists")
        proxy = self._new_proxy(wanted)
        if wanted.enabled:
            await proxy.start()
        self._proxies[wanted.name] = proxy
        return _json(201, proxy.shape())

    async def _populate(self, request: HttpRequest) -> HttpResponse:
        made: list[Proxy] = []
        for wanted in parse_populate(request.body):
            existing = self._proxies.get(wanted.name)
            if existing is not None and existing.same_as(wanted.listen, wanted.upstream):
                made.append(existing)
                continue
            if existing is not None:
                await existing.stop()
                del self._proxies[wanted.name]
            proxy = self._new_proxy(wanted)
            try:
                if wanted.enabled:
                    await proxy.start()
            except ApiError as error:
                return HttpResponse(error.status, go_json({**error.shape(), "proxies": _shapes(made)}),
                                    {"Content-Type": "application/json"})
            self._proxies[wanted.name] = proxy
            made.append(proxy)
        return _json(201, {"proxies": _shapes(made)})

    async def _show(self, request: HttpRequest, proxy: str) -> HttpResponse:
        return _json(200, self._proxy(proxy).shape())

    async def _update(self, request: HttpRequest, proxy: str) -> HttpResponse:
        target = self._proxy(proxy)
        listen, upstream, enabled = parse_proxy_update(request.body, target.listen, target.upstream, target.enabled)
        if listen != target.listen or upstream != target.upstream:
            await target.stop()
            target.listen, target.upstream = listen, upstream
        if enabled and not target.enabled:
            await target.start()
        elif not enabled and target.enabled:
            await target.stop()
        return _json(200, target.shape())

    async def _delete(self, request: HttpRequest, proxy: str) -> HttpResponse:
        await self._proxy(proxy).stop()
        del self._proxies[proxy]
        return HttpResponse(204)

    async def _reset(self, request: HttpRequest) -> HttpResponse:
        for proxy in list(self._proxies.values()):
            await proxy.start()
            proxy.remove_all_toxics()
        return HttpResponse(204)

    async def _version(self, request: HttpRequest) -> HttpResponse:
        return HttpResponse(200, f'{{"version": "{VERSION}"}}\n'.encode(),
                            {"Content-Type": "application/json;charset=utf-8"})

    # -- toxics -----------------------------------------------------------------------------------------
    async def _toxic_index(self, request: HttpRequest, proxy: str) -> HttpResponse:
        return _json(200, [toxic.shape() for toxic in self._proxy(proxy).toxics()])

    async def _toxic_create(self, request: HttpRequest, proxy: str) -> HttpResponse:
        target = self._proxy(proxy)
        toxic = parse_toxic_create(request.body, {t.name for t in target.toxics()})
        target.add_toxic(toxic)
        return _json(200, toxic.shape())

    async def _toxic_show(self, request: HttpRequest, proxy: str, toxic: str) -> HttpResponse:
        found = self._proxy(proxy).find(toxic)
        if found is None:
            raise ApiError(404, "toxic not found")
        return _json(200, found.shape())

    async def _toxic_update(self, request: HttpRequest, proxy: str, toxic: str) -> HttpResponse:
        target = self._proxy(proxy)
        found = target.find(toxic)
        if found is None:
            raise ApiError(404, "toxic not found")
        updated = parse_toxic_update(request.body, found)
        target.update_toxic(updated)
        return _json(200, updated.shape())

    async def _toxic_delete(self, request: HttpRequest, proxy: str, toxic: str) -> HttpResponse:
        if not self._proxy(proxy).remove_toxic(toxic):
            raise ApiError(404, "toxic not found")
        return HttpResponse(204)


def _shapes(proxies: list[Proxy]) -> list[dict[str, Any]] | None:
    return [proxy.shape() for proxy in proxies] or None  # Go marshals an empty slice it never grew as null
