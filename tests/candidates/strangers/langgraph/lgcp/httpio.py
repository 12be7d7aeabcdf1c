"""HTTP plumbing: clients, the "request sent" hook, and what each failure proves.

Two facts drive this module. First, a cancellation must be acknowledged without waiting for a
write that is already on its way (the harness may hold that request until it has the
acknowledgement), yet no write may *start* after it. So the write guard (`leases.py`) holds its
database row lock from its checks until the request's body has been handed to the socket, and
this module tells it when: the transports put httpcore's `trace` extension on every request and
call the thread's pending hook on `send_request_body.complete`.

Second, every failure is either *definite* (nothing was written) or *unknown* (it may have been):
`classify` says which, from the contract's table, and whether it refuses the credential.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable

import httpx
import httpx2
import openai

_local = threading.local()


def on_sent(hook: Callable[[], None] | None) -> None:
    """Arm (or disarm) the hook run once the current thread's next request body is sent."""
    _local.hook = hook


def fire_sent() -> None:
    hook = getattr(_local, "hook", None)
    if hook is not None:
        _local.hook = None
        hook()


def _trace(event: str, info: dict[str, Any]) -> None:
    if event in ("http11.send_request_body.complete", "http2.send_request_body.complete"):
        fire_sent()


class TracedTransport(httpx.HTTPTransport):
    """An httpx transport that reports the moment a request was sent."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.extensions = {**request.extensions, "trace": _trace}
        return super().handle_request(request)


class TracedTransport2(httpx2.HTTPTransport):
    """The same for the `openai` SDK's client (httpx2)."""

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        request.extensions = {**request.extensions, "trace": _trace}
        return super().handle_request(request)


def http_client(timeout: float) -> httpx.Client:
    return httpx.Client(transport=TracedTransport(retries=0), timeout=timeout)


def openai_client(base_url: str, api_key: str, max_retries: int, timeout: float) -> openai.OpenAI:
    client = httpx2.Client(transport=TracedTransport2(retries=0), timeout=timeout)
    return openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=max_retries,
                         timeout=timeout, http_client=client)


UNKNOWN_STATUSES = {408, 409, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524}


@dataclass
class Failure:
    """What a failed request proves."""

    kind: str  # "definite" | "unknown" | "revoked" | "refused" (connection refused: nothing sent)
    status: int | None
    code: str
    message: str
    retry_after: float | None = None

    def describe(self) -> str:
        return f"HTTP {self.status} {self.code}".strip() if self.status else f"{self.code}: {self.message}"[:300]


def _nested_401(body: Any) -> bool:
    """Core WordPress answers a revoked password's `status=any` listing with a 400 hiding a 401."""
    if not isinstance(body, dict):
        return False
    data = body.get("data")
    if isinstance(data, dict):
        if data.get("status") == 401:
            return True
        details = data.get("details")
        if isinstance(details, dict):
            for value in details.values():
                if isinstance(value, dict) and (value.get("status") == 401 or _nested_401(value)):
                    return True
    return False


def _retry_after(headers: Any) -> float | None:
    try:
        value = headers.get("retry-after") if headers is not None else None
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def classify_status(status: int, body: Any, headers: Any = None) -> Failure:
    """A non-2xx answer, by the contract's table."""
    code, message = "", ""
    if isinstance(body, dict):
        inner = body.get("error")
        err = inner if isinstance(inner, dict) else body
        code = str(err.get("code") or err.get("type") or "")
        message = str(err.get("message") or "")
    retry_after = _retry_after(headers)
    if status == 401 or (status in (400, 403) and _nested_401(body)):
        return Failure("revoked", status, code, message, retry_after)
    if status in UNKNOWN_STATUSES or status >= 500:
        return Failure("unknown", status, code, message, retry_after)
    return Failure("definite", status, code, message, retry_after)


def classify_exception(exc: BaseException) -> Failure:
    """A transport error or an SDK error."""
    if isinstance(exc, openai.APIStatusError):
        body: Any = exc.body
        if isinstance(body, dict) and "error" not in body and ("code" in body or "message" in body):
            body = {"error": body}
        elif not isinstance(body, dict):
            body = {"error": {"message": str(exc)}}
        return classify_status(exc.status_code, body, exc.response.headers)
    if isinstance(exc, (httpx.ConnectError, httpx2.ConnectError)):
        return Failure("refused", None, "connect_error", str(exc))
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        if isinstance(cause, (httpx.ConnectError, httpx2.ConnectError)):
            return Failure("refused", None, "connect_error", str(exc))
        return Failure("unknown", None, type(exc).__name__, str(exc))
    return Failure("unknown", None, type(exc).__name__, str(exc))


def json_body(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return {"message": response.text[:200]}
