"""WordPress errors as the REST API serialises them: ``{"code", "message", "data": {"status", ...}}``.

``WPError`` is the fake's ``WP_Error``: a code, a message, an HTTP status and extra ``data``.
Handlers and the state machine raise it; the route layer turns it into a response. The
constructors below hold the exact codes and messages of WordPress core (and Rank Math) so every
caller says the same thing. ``ParamErrors`` collects per-parameter failures the way core's
``has_valid_params``/``sanitize_params`` do and raises one aggregated ``rest_invalid_param``.

What it deliberately does not do: build HTTP responses (``_wire``) or decide when an error
applies (the routes and the state machine do).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ParamErrors",
    "WPError",
    "auth_required",
    "invalid_json",
    "no_route",
    "post_invalid_id",
]


class WPError(Exception):
    """A WordPress error with its HTTP status; ``data`` is merged into the body's ``data``."""

    def __init__(self, code: str, message: str, status: int, *, additional_data: list[Any] | None = None,
                 **data: Any) -> None:
        super().__init__(f"{code}: {message} (HTTP {status})")
        self.code = code
        self.message = message
        self.status = status
        self.data = data
        self.additional_data = additional_data  # WP_Error's further data for the same code, top level

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message, "data": {"status": self.status, **self.data}}
        if self.additional_data:
            body["additional_data"] = list(self.additional_data)
        return body

    def __repr__(self) -> str:
        return f"WPError(code={self.code!r}, status={self.status!r}, message={self.message!r})"


def auth_required(code: str, message: str, logged_in: bool) -> WPError:
    """Core's ``rest_authorization_required_code()``: 401 for nobody, 403 for a logged-in user."""
    return WPError(code, message, 403 if logged_in else 401)


def no_route() -> WPError:
    return WPError("rest_no_route", "No route was found matching the URL and request method.", 404)


def invalid_json() -> WPError:
    # PHP's json_last_error() for any syntax problem is JSON_ERROR_SYNTAX (4), "Syntax error".
    return WPError("rest_invalid_json", "Invalid JSON body passed.", 400,
                   json_error_code=4, json_error_message="Syntax error")


def post_invalid_id() -> WPError:
    return WPError("rest_post_invalid_id", "Invalid post ID.", 404)


class ParamErrors:
    """Per-parameter failures, raised together as one 400 ``rest_invalid_param``."""

    def __init__(self) -> None:
        self.params: dict[str, str] = {}
        self.details: dict[str, Any] = {}

    def add(self, param: str, code: str, message: str, data: Any = None) -> None:
        if param in self.params:
            return
        self.params[param] = message
        self.details[param] = {"code": code, "message": message, "data": data}

    def add_plain(self, param: str, message: str = "Invalid parameter.") -> None:
        """A validate callback that returned ``false``: core records no details for it."""
        self.params.setdefault(param, message)

    def __bool__(self) -> bool:
        return bool(self.params)

    def raise_if_any(self) -> None:
        if not self.params:
            return
        # PHP serialises an empty details array as [] rather than {}.
        details: Any = dict(self.details) if self.details else []
        raise WPError("rest_invalid_param", "Invalid parameter(s): " + ", ".join(self.params), 400,
                      params=dict(self.params), details=details)
