"""The wire format of the fake WordPress: site URLs, JSON encoding and the standard headers.

Every REST response of core carries ``Content-Type: application/json; charset=UTF-8``,
``X-Robots-Tag: noindex``, ``X-Content-Type-Options: nosniff`` and the API discovery ``Link``;
authenticated responses add the no-cache headers. JSON is encoded the way PHP's
``json_encode`` does by default (``\\/`` and ``\\uXXXX`` escapes), so byte-level digests look
like a real site's.

What it deliberately does not do: decide statuses or bodies (routes do), or parse requests
(``_params``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from durable_harness.wire import Response
from durable_harness.fakes.wordpress._errors import WPError

__all__ = ["Site", "encode", "error_response", "wp_response"]

_NO_CACHE = {"cache-control": "no-cache, must-revalidate, max-age=0",
             "expires": "Wed, 11 Jan 1984 05:00:00 GMT"}


@dataclass(frozen=True)
class Site:
    """Where the site lives: ``url`` without a trailing slash, e.g. ``http://wordpress.dh.test``."""

    url: str

    @property
    def api_root(self) -> str:
        return self.url + "/wp-json/"

    def rest_url(self, route: str) -> str:
        return self.api_root + route.lstrip("/")


def encode(payload: Any) -> bytes:
    # "/" only ever occurs inside JSON strings, so escaping it textually is exact.
    return json.dumps(payload, separators=(",", ":")).replace("/", "\\/").encode("ascii")


def wp_response(site: Site, status: int, payload: Any, *, logged_in: bool,
                headers: Mapping[str, str] | None = None, links: Sequence[str] = ()) -> Response:
    """A REST response with core's headers; ``links`` are extra ``Link`` values (prev, next, alternate)."""
    merged = {
        "content-type": "application/json; charset=UTF-8",
        "x-robots-tag": "noindex",
        "x-content-type-options": "nosniff",
        "access-control-expose-headers": "X-WP-Total, X-WP-TotalPages, Link",
        "access-control-allow-headers": "Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type",
        # Two Link header lines on the real wire; one comma-joined value is the same to HTTP.
        "link": ", ".join([f'<{site.api_root}>; rel="https://api.w.org/"', *links]),
    }
    if logged_in:
        merged.update(_NO_CACHE)
    merged.update({k.lower(): v for k, v in (headers or {}).items()})
    return Response(status=status, headers=merged, body=encode(payload))


def error_response(site: Site, error: WPError, *, logged_in: bool) -> Response:
    return wp_response(site, error.status, error.body(), logged_in=logged_in)
