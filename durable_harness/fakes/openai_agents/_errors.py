"""Errors of the simulated Agents API, shaped as the openai SDK parses them.

The body is always ``{"error": {"message", "type", "code", "param"}}``; the SDK turns the status
into its exception class (400 ``BadRequestError``, 401 ``AuthenticationError``, 404
``NotFoundError`` ...) and exposes the inner object as ``exc.body`` with ``.code``/``.type``/
``.param``. The state machine raises ``ApiError``; the routes turn it into a response.

A malformed request body is a 400 ``invalid_request_error`` whose ``param`` is the dotted path of
the field (``agent.model``, ``agent.tools[0].parameters``, ``events[0].call_id``) and whose
``code`` says what is wrong with it, as the platform's validation errors do:

===============================  =============================================================
``missing_required_parameter``   the field is absent (or null where a value is required)
``invalid_type``                 the field has the wrong JSON type
``invalid_value``                the type is right but the value is not allowed
``string_above_max_length``      a string is too long (a function name over 64 characters)
``unknown_parameter``            a field this object does not have
``empty_array``                  a list that must not be empty is
``invalid_function_parameters``  a function tool's ``parameters`` is not an object JSON Schema
===============================  =============================================================

Exception tree::

    Exception
     └── ApiError                   one API error: status + the four body fields

What it deliberately does not do: decide *when* an error happens (the state machine and the
routes do), or retry hints (``Retry-After`` belongs to the gate's faults).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from durable_harness.wire import Response, json_response

__all__ = [
    "ApiError",
    "bad_request",
    "conflict",
    "empty_array",
    "invalid_api_key",
    "invalid_type",
    "invalid_value",
    "json_kind",
    "missing_api_key",
    "missing_parameter",
    "not_found",
    "shown",
    "unknown_parameter",
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


def missing_parameter(param: str, hint: str = "") -> ApiError:
    """``param`` is absent; ``hint`` (a sentence) says what to send."""
    return bad_request(f"Missing required parameter: '{param}'.{' ' + hint if hint else ''}", param=param,
                       code="missing_required_parameter")


def invalid_type(param: str, expected: str, value: Any) -> ApiError:
    """``param`` is ``value``, of the wrong JSON type; ``expected`` words the right one ("a string")."""
    return bad_request(f"Invalid type for '{param}': expected {expected}, but got {json_kind(value)} instead "
                       f"({shown(value)}).", param=param, code="invalid_type")


def invalid_value(param: str, message: str) -> ApiError:
    """``param`` has a value of the right type that is not allowed; ``message`` says why and what is."""
    return bad_request(f"Invalid value for '{param}': {message}", param=param, code="invalid_value")


def unknown_parameter(param: str, known: Iterable[str]) -> ApiError:
    return bad_request(f"Unknown parameter: '{param}'. This object has: {', '.join(sorted(known))}.", param=param,
                       code="unknown_parameter")


def empty_array(param: str, what: str) -> ApiError:
    return bad_request(f"Invalid '{param}': empty array. Expected an array with minimum length 1 ({what}), but got "
                       "an empty array instead.", param=param, code="empty_array")


def json_kind(value: Any) -> str:
    """The JSON type of ``value`` as the platform's messages name it ("an object", "a string" ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def shown(value: Any, limit: int = 80) -> str:
    """``repr(value)``, clipped: a message shows the value, never a whole upload."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


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
