"""``POST /batch/v1``: core's batch endpoint — several writes in one request, answered 207.

``{"validation": "normal" | "require-all-validate", "requests": [{"method", "path", "body",
"headers"}]}``. At most 25 requests; methods ``POST``, ``PUT``, ``PATCH``, ``DELETE`` (a ``GET``
fails the whole batch with 400, as core's schema does). Each request runs through the same route
table as a single request, with the batch's credentials. Only routes that allow batching take
part: posts, pages, terms and users; media and plugin routes answer 400 ``rest_batch_not_allowed``.
It is **not transactional**: with ``normal`` each request runs on its own, and earlier writes stay
when a later one fails. With ``require-all-validate`` every request is first checked (parameter
validation and route matching only, nothing written); if any fails, nothing runs and the answer is
``{"failed": "validation", "responses": [error | null, ...]}``.

What it deliberately does not do: nested batches, or the ``v1`` version negotiation beyond the path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from durable_harness.wire import Request, Response
from durable_harness.fakes.wordpress._api import Api
from durable_harness.fakes.wordpress._errors import WPError
from durable_harness.fakes.wordpress._params import Validator, request_params
from durable_harness.fakes.wordpress._state import DryRun

__all__ = ["BatchRoute"]

MAX_REQUESTS = 25
_METHODS = ("POST", "PUT", "PATCH", "DELETE")
_NOT_BATCHABLE = re.compile(r"^/(wp/v2/media|rankmath/|batch/|wp/v2/users/[^/]+/application-passwords)")
_VALIDATION_CODES = ("rest_invalid_param", "rest_missing_callback_param", "rest_no_route", "rest_batch_not_allowed",
                     "rest_invalid_json")
_KEPT_HEADERS = {"location": "Location", "allow": "Allow", "link": "Link", "x-wp-total": "X-WP-Total",
                 "x-wp-totalpages": "X-WP-TotalPages", "x-wp-upload-attachment-id": "X-WP-Upload-Attachment-ID"}


class BatchRoute:
    def __init__(self, api: Api, dispatch: Callable[[Request], Response]) -> None:
        self._api = api
        self._dispatch = dispatch

    def run(self, request: Request) -> Response:
        params = request_params(request)
        if params.get("requests") is None:
            raise WPError("rest_missing_callback_param", "Missing parameter(s): requests", 400, params=["requests"])
        v = Validator()
        validation = v.enum("validation", params.get("validation", "normal"), ("require-all-validate", "normal"))
        requests = params["requests"]
        if not isinstance(requests, list):
            v.errors.add("requests", "rest_invalid_type", "requests is not of type array.", {"param": "requests"})
        elif len(requests) > MAX_REQUESTS:
            v.errors.add("requests", "rest_too_many_items", f"requests must contain at most {MAX_REQUESTS} items.")
        else:
            for index, sub in enumerate(requests):
                problem = _invalid(index, sub)
                if problem is not None:
                    v.errors.add("requests", *problem)
                    break
        v.done()
        subs = [self._sub_request(request, sub) for sub in requests]
        if validation == "require-all-validate":
            checked = [self._validate(sub) for sub in subs]
            if any(c is not None for c in checked):
                return self._api.respond(request, 207, {"failed": "validation", "responses": checked})
        return self._api.respond(request, 207, {"responses": [self._run_one(sub) for sub in subs]})

    def _sub_request(self, outer: Request, sub: Mapping[str, Any]) -> Request | WPError:
        parts = urlsplit(str(sub["path"]))
        route = parts.path or "/"
        if _NOT_BATCHABLE.match(route):  # routes that exist but do not allow batching
            return WPError("rest_batch_not_allowed", "The requested route does not support batch requests.", 400)
        headers = {k.lower(): str(v) for k, v in (sub.get("headers") or {}).items()}
        auth = outer.header("authorization")
        if auth:
            headers.setdefault("authorization", auth)
        headers["content-type"] = "application/json"
        return Request.build(str(sub.get("method") or "POST"), route, parts.query, headers,
                             json.dumps(sub.get("body") or {}).encode())

    def _validate(self, sub: Request | WPError) -> dict[str, Any] | None:
        if isinstance(sub, WPError):
            return _entry(sub.status, sub.body(), {})
        state = self._api.state
        state.dry_run = True
        try:
            response = self._dispatch(sub)
        except DryRun:
            return None  # it got as far as writing: it validates
        finally:
            state.dry_run = False
        body = _json(response)
        if response.status >= 400 and isinstance(body, dict) and body.get("code") in _VALIDATION_CODES:
            return _entry(response.status, body, _kept(response))
        return None

    def _run_one(self, sub: Request | WPError) -> dict[str, Any]:
        if isinstance(sub, WPError):
            return _entry(sub.status, sub.body(), {})
        response = self._dispatch(sub)
        return _entry(response.status, _json(response), _kept(response))


def _invalid(index: int, sub: Any) -> tuple[str, str] | None:
    """(code, message) for a request item core's schema refuses, else None."""
    where = f"requests[{index}]"
    if not isinstance(sub, dict):
        return "rest_invalid_type", f"{where} is not of type object."
    method = sub.get("method", "POST")
    if not isinstance(method, str) or method.upper() not in _METHODS:
        return "rest_not_in_enum", f"{where}[method] is not one of POST, PUT, PATCH, and DELETE."
    if not isinstance(sub.get("path"), str):
        return "rest_property_required", f"path is a required property of {where}."
    for key in ("body", "headers"):
        if key in sub and not isinstance(sub[key], (dict, list)):
            return "rest_invalid_type", f"{where}[{key}] is not of type object."
    return None


def _entry(status: int, body: Any, headers: Mapping[str, str]) -> dict[str, Any]:
    # PHP encodes an empty headers array as [] rather than {}.
    return {"body": body, "status": status, "headers": dict(headers) if headers else []}


def _json(response: Response) -> Any:
    try:
        return json.loads(response.body) if response.body else None
    except ValueError:
        return None


def _kept(response: Response) -> dict[str, str]:
    """The headers core puts in a sub-response (its own, not the server's); none for a 404."""
    if response.status == 404:
        return {}
    out = {}
    for key, value in response.headers.items():
        name = _KEPT_HEADERS.get(key.lower())
        if name == "Link":
            value = ", ".join(v for v in value.split(", ") if 'rel="https://api.w.org/"' not in v)
        if name is not None and value:
            out[name] = value
    return out
