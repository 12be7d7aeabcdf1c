"""What every route handler shares: the site, the state, who is asking, and how to answer.

``Api.respond`` applies the response-shaping query parameters core honours everywhere
(``_embed`` and ``_fields`` on success bodies, ``_envelope`` on everything) and core's headers. ``rich_text``
reads a ``title``/``content``/``excerpt`` given as a string or as ``{"raw": ...}``, and
``route_id`` turns a ``{id}`` path segment into an int (non-digits mean the route does not match,
as core's ``(?P<id>[\\d]+)`` pattern), and ``target_id`` applies core's parameter order to it: an
``id`` in the JSON body, the form body or the query wins over the one in the URL
(``WP_REST_Request::get_param`` looks at JSON, POST, GET, then the URL). ``Api.list_response`` answers a collection ``GET`` the way
the posts and media controllers both do; ``Api.existing`` is the live item or core's 404.

What it deliberately does not do: routing (``_routes``) or any WordPress rule (the state, the
queries and the handlers hold those; ``list_response`` only puts ``_query``'s steps in order).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from durable_harness.wire import Request, Response
from durable_harness.fakes.wordpress._auth import Accounts, Identity, User
from durable_harness.fakes.wordpress._embed import embed
from durable_harness.fakes.wordpress._errors import no_route, post_invalid_id
from durable_harness.fakes.wordpress._params import Validator, as_list, request_params
from durable_harness.fakes.wordpress._query import list_headers, paginate, parse_list, select
from durable_harness.fakes.wordpress._render import Renderer, filter_fields
from durable_harness.fakes.wordpress._records import Item
from durable_harness.fakes.wordpress._state import WordPressState
from durable_harness.fakes.wordpress._wire import Site, wp_response

__all__ = ["Api", "rich_text", "route_id", "target_id"]


def route_id(segment: str) -> int:
    if not segment.isdigit():
        raise no_route()
    return int(segment)


def target_id(params: Mapping[str, Any], segment: str, v: Validator) -> int:
    """The id a ``/<type>/<id>`` request acts on: ``id`` from the body or query if given, else the URL's."""
    url_id = route_id(segment)
    if params.get("id") is None:
        return url_id
    given = v.integer("id", params["id"])
    return url_id if given is None else given


def rich_text(value: Any, *, raw_must_be_non_empty: bool = False) -> str | None:
    """A string, or ``{"raw": ...}``; None when the request does not set the field."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        raw = value.get("raw")
        if isinstance(raw, bool) or raw is None or (raw_must_be_non_empty and raw in ("", "0", 0)):
            return None
        if isinstance(raw, (str, int, float)):
            return str(raw)
    return None


class Api:
    def __init__(self, site: Site, state: WordPressState, accounts: Accounts, *, operation_key_query: bool = True,
                 upload_max_filesize: int = 2 * 1024 * 1024, post_max_size: int = 8 * 1024 * 1024) -> None:
        self.site = site
        self.state = state
        self.accounts = accounts
        self.operation_key_query = operation_key_query  # the must-use plugin that filters by operation key
        self.upload_max_filesize = upload_max_filesize  # php.ini limits, in bytes
        self.post_max_size = post_max_size
        self.renderer = Renderer(site, state)

    def identity(self, request: Request) -> Identity:
        return self.accounts.identify(request.header("authorization"))

    def user(self, request: Request) -> User | None:
        return self.identity(request).user

    def label(self, request: Request) -> str:
        return self.identity(request).label

    def existing(self, item_id: int, type_: str) -> Item:
        """The live item ``item_id`` of ``type_``, or core's 404 ``rest_post_invalid_id``."""
        item = self.state.get(item_id, type_)
        if item is None:
            raise post_invalid_id()
        return item

    def list_response(self, request: Request, *, type_: str, route: str,
                      render: Callable[[Sequence[Item], str, User | None], Sequence[dict[str, Any]]]) -> Response:
        """A collection ``GET`` of ``route``: one page of the live ``type_`` items the query selects.

        ``render(items, context, user)`` gives the body; the ``X-WP-Total``/``X-WP-TotalPages``
        headers and prev/next links count every selected item, rendered or not.
        """
        params = request_params(request)
        user = self.user(request)
        q = parse_list(params, type_=type_, user=user, operation_key_query=self.operation_key_query)
        items, total, pages = paginate(select(self.state.live(type_), q), q)
        body = list(render(items, q.context, user))
        headers, links = list_headers(self.site, route, request.query, q, total, pages)
        return self.respond(request, 200, body, headers=headers, links=links)

    def respond(self, request: Request, status: int, payload: Any, *, headers: Mapping[str, str] | None = None,
                links: Sequence[str] = (), error: bool = False) -> Response:
        embedding = request.arg("_embed")
        if embedding is not None and not error:
            payload = embed(payload, embedding, state=self.state, accounts=self.accounts, renderer=self.renderer)
        fields = request.arg("_fields")
        if fields is not None and not error:
            names = [str(f) for f in as_list(fields)]
            if isinstance(payload, list):
                payload = [filter_fields(p, names) if isinstance(p, dict) else p for p in payload]
            elif isinstance(payload, dict):
                payload = filter_fields(payload, names)
        logged_in = self.user(request) is not None
        if request.arg("_envelope") is not None:
            envelope = {"body": payload, "status": status, "headers": dict(headers or {})}
            return wp_response(self.site, 200, envelope, logged_in=logged_in, links=links)
        return wp_response(self.site, status, payload, logged_in=logged_in, headers=headers, links=links)
