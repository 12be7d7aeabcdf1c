"""Errors of the simulated Agents API, shaped as the openai SDK parses them.

The body is always ``{"error": {"message", "type", "code", "param"}}``; the SDK turns the status
into its exception class (400 ``BadRequestError``, 401 ``AuthenticationError``, 404
``NotFoundError`` ...) and exposes the inner object as ``exc.body`` with ``.code``/``.type``/
``.param``. The state machine raises ``ApiError``; the routes turn it into a response.

Exception tree::

    Exception
     └── ApiError                   one API error: status + the four body fields

What it deliberately does not do: decide *when* an error happens (the state machine and the
routes do), or retry hints (``Retry-After`` belongs to the gate's faults).
"""

from __future__ import annotations

from typing import Any

from fakes._http import Response, json_response

__all__ = [
    "ApiError",
    "bad_request",
    "conflict",
    "invalid_api_key",
    "missing_api_key",
    "not_found",
    "unknown_pending_tool_call",
]


class ApiError(Exception):
    """An error answer of the fake: ``status`` plus the SDK's error object."""

    def __init__(self, status: int, message: str, *, type_: str = "invalid_request_error",
                 code: str | None = None, param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type_
        self.code = code
        self.param = param

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "code": self.code, "param": self.param}}

    def response(self) -> Response:
        return json_response(self.status, self.body())

    def __repr__(self) -> str:
        return f"ApiError(status={self.status!r}, message={self.message!r}, code={self.code!r}, param={self.param!r})"


def bad_request(message: str, *, param: str | None = None, code: str | None = None) -> ApiError:
    return ApiError(400, message, code=code, param=param)


def conflict(message: str, *, param: str | None = None, code: str | None = None) -> ApiError:
    return ApiError(409, message, code=code, param=param)


def not_found(message: str, *, param: str | None = None) -> ApiError:
    return ApiError(404, message, param=param)


def invalid_api_key() -> ApiError:
    # The real message echoes a masked key; this one never echoes any part of it (the history
    # records response bodies, and secrets never enter the history).
    return ApiError(401, "Incorrect API key provided. You can find your API key at "
                    "https://platform.openai.com/account/api-keys.", code="invalid_api_key")


def missing_api_key() -> ApiError:
    return ApiError(401, "You didn't provide an API key. You need to provide your API key in an "
                    "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
                    code="invalid_api_key")


def unknown_pending_tool_call(call_id: str) -> ApiError:
    """The sessions API's known race, byte for byte as the SDK's tool dispatcher matches it."""
    return ApiError(400, f"Unknown pending tool call: {call_id}", code="invalid_request_error")
