"""HTTP routes of the environments API, and the ``TokenPage`` of environment files.

=======  =============================================  ================================================
POST     /agents/environments                           EnvironmentInfo (optional ``Idempotency-Key``)
GET      /agents/environments                           CursorPage[EnvironmentInfo] (``type=openai_hosted``)
GET      /agents/environments/{environment_id}          EnvironmentInfo
POST     /agents/environments/{environment_id}/files    EnvironmentFile (inline upload; 409 unless connected)
GET      /agents/environments/{environment_id}/files    TokenPage[EnvironmentFile] (``limit, order, page, path``)
=======  =============================================  ================================================

**TokenPage.** Files sort by their case-sensitive path components, descending by default. A page
is ``{data, has_more, next}``; ``next`` is an opaque token (``ptok_`` + base64url JSON of the last
path, the order, the directory and the limit) that the SDK sends back as ``page``. A token used
with another ``path``, ``order`` or ``limit`` is a 400, as the SDK documents ("keep the same path,
order, and limit"). The cursor is the last path itself, so a page after a file vanished (a
replaced sandbox) still continues where it should.

What it deliberately does not do: templates (``GET /agents/environments/templates`` is answered
as an unknown environment), or state changes of its own (``Environments`` makes them).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from durable_harness.fakes._http import Router
from durable_harness.wire import Request, Response, json_response
from durable_harness.fakes.executor import WORKSPACE
from durable_harness.fakes.openai_agents._environments import Environments, Hosted, environment_info
from durable_harness.fakes.openai_agents._errors import bad_request
from durable_harness.fakes.openai_agents._paging import PageQuery, cursor_page, page_query

__all__ = ["add_environment_routes", "token_page"]

_TOKEN_PREFIX = "ptok_"


def _json_body(request: Request) -> Any:
    try:
        return request.json()
    except ValueError:
        raise bad_request("We could not parse the JSON body of your request. The OpenAI API expects a JSON "
                          "payload.") from None


def add_environment_routes(router: Router, environments: Environments) -> None:
    def create(request: Request) -> Response:
        info = environments.create(_json_body(request), request.header("idempotency-key") or None)
        return json_response(200, info)

    def listing(request: Request) -> Response:
        query = page_query(request)
        kind = request.arg("type")
        if kind not in (None, "openai_hosted"):
            raise bad_request(f"Invalid 'type': {kind!r}; expected 'openai_hosted'.", param="type")

        def hosted_id(hosted: Hosted) -> str:
            return hosted.id

        def render(hosted: Hosted) -> dict[str, Any]:
            return environment_info(hosted, environments.executor.status(hosted.id))

        return json_response(200, cursor_page(environments.all(), query, key=hosted_id, render=render))

    def retrieve(request: Request, environment_id: str) -> Response:
        return json_response(200, environments.info(environment_id))

    def upload(request: Request, environment_id: str) -> Response:
        environments.get(environment_id)  # 404 before body errors
        return json_response(200, environments.upload(environment_id, _json_body(request)))

    def files(request: Request, environment_id: str) -> Response:
        environments.get(environment_id)
        query = page_query(request)
        directory = (request.arg("path") or WORKSPACE).rstrip("/") or "/"
        live = environments.live_files(environment_id, directory)
        return json_response(200, token_page(environment_id, live, query, directory, request.arg("page") or None))

    router.add("POST", "/agents/environments", create)
    router.add("GET", "/agents/environments", listing)
    router.add("GET", "/agents/environments/{environment_id}", retrieve)
    router.add("POST", "/agents/environments/{environment_id}/files", upload)
    router.add("GET", "/agents/environments/{environment_id}/files", files)


def token_page(environment_id: str, files: dict[str, int], query: PageQuery, directory: str,
               page: str | None) -> dict[str, Any]:
    """One ``TokenPage`` of ``files`` (path -> size) after the position ``page`` encodes."""

    def key(path: str) -> tuple[str, ...]:
        return tuple(path.split("/"))

    ordered = sorted(files, key=key, reverse=query.order == "desc")
    if page is not None:
        after = key(_decode(page, query, directory))
        ordered = [p for p in ordered if (key(p) > after if query.order == "asc" else key(p) < after)]
    chosen, has_more = ordered[:query.limit], len(ordered) > query.limit
    data = [{"object": "agent.environment.file", "environment_id": environment_id, "path": p,
             "size_bytes": files[p]} for p in chosen]
    return {"data": data, "has_more": has_more,
            "next": _encode(chosen[-1], query, directory) if has_more and chosen else None}


def _encode(last_path: str, query: PageQuery, directory: str) -> str:
    raw = json.dumps({"a": last_path, "o": query.order, "p": directory, "l": query.limit}, separators=(",", ":"))
    return _TOKEN_PREFIX + base64.urlsafe_b64encode(raw.encode()).decode("ascii").rstrip("=")


def _decode(page: str, query: PageQuery, directory: str) -> str:
    shown = page if len(page) <= 60 else page[:60] + "..."
    try:
        if not page.startswith(_TOKEN_PREFIX):
            raise ValueError(page)
        body = page[len(_TOKEN_PREFIX):]
        state = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        last, order, where, limit = state["a"], state["o"], state["p"], state["l"]
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise bad_request(f"Invalid 'page': {shown!r} is not a page token of this list; pass the 'next' of the "
                          "previous page.", param="page") from None
    if (order, where, limit) != (query.order, directory, query.limit):
        raise bad_request(f"Invalid 'page': the token was made for order={order!r}, path={where!r}, limit={limit!r} "
                          f"but this request has order={query.order!r}, path={directory!r}, limit={query.limit!r}; "
                          "keep the same path, order and limit while paging.", param="page")
    if not isinstance(last, str):
        raise bad_request(f"Invalid 'page': {shown!r} is not a page token of this list.", param="page")
    return last
