"""Framework-free HTTP for the fakes: a request, a response, and a tiny method+path router.

Every fake answers ``Request -> Response`` through these types. The gate builds a ``Request``
from an ``httpx.Request`` in-process; the ASGI adapter builds one from Starlette. Neither the
state machines nor the routes import an HTTP framework.

What it deliberately does not do: networking, streaming of unbounded bodies, or parsing beyond
JSON, urlencoded forms and multipart/form-data (the forms WordPress accepts).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any
from urllib.parse import parse_qsl

__all__ = ["Request", "Response", "Router", "json_response"]


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: tuple[tuple[str, str], ...] = ()
    headers: Mapping[str, str] = field(default_factory=dict)  # lower-case names
    body: bytes = b""

    @classmethod
    def build(cls, method: str, path: str, query_string: str = "",
              headers: Mapping[str, str] | None = None, body: bytes = b"") -> Request:
        return cls(
            method=method.upper(),
            path=path,
            query=tuple(parse_qsl(query_string, keep_blank_values=True)),
            headers={k.lower(): v for k, v in (headers or {}).items()},
            body=body,
        )

    def arg(self, name: str, default: str | None = None) -> str | None:
        for key, value in self.query:
            if key == name:
                return value
        return default

    def args(self, name: str) -> list[str]:
        return [v for k, v in self.query if k == name]

    def header(self, name: str, default: str | None = None) -> str | None:
        return self.headers.get(name.lower(), default)

    @property
    def content_type(self) -> str:
        return (self.header("content-type") or "").split(";")[0].strip().lower()

    def json(self) -> Any:
        """The body as JSON; raises ValueError on bad JSON (callers map it to their 400)."""
        if not self.body:
            return None
        return json.loads(self.body.decode("utf-8"))

    def form(self) -> tuple[dict[str, str], dict[str, tuple[str, str, bytes]]]:
        """Fields and files of a urlencoded or multipart body: ({name: value}, {name: (filename, type, bytes)})."""
        if self.content_type == "application/x-www-form-urlencoded":
            return dict(parse_qsl(self.body.decode("utf-8"), keep_blank_values=True)), {}
        if self.content_type != "multipart/form-data":
            return {}, {}
        head = f"Content-Type: {self.header('content-type')}\r\n\r\n".encode()
        message = BytesParser(policy=HTTP).parsebytes(head + self.body)
        fields: dict[str, str] = {}
        files: dict[str, tuple[str, str, bytes]] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if not isinstance(name, str):
                continue
            raw = part.get_payload(decode=True)
            payload = raw if isinstance(raw, bytes) else b""
            filename = part.get_filename()
            if filename is not None:
                files[name] = (filename, part.get_content_type(), payload)
            else:
                fields[name] = payload.decode("utf-8")
        return fields, files


@dataclass(frozen=True)
class Response:
    status: int
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    # A streamed body (SSE): chunks are produced lazily, so faults can cut it after k events.
    stream: Callable[[], Iterator[bytes]] | None = None

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8")) if self.body else None


def json_response(status: int, payload: Any, headers: Mapping[str, str] | None = None) -> Response:
    body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    merged = {"content-type": "application/json", **{k.lower(): v for k, v in (headers or {}).items()}}
    return Response(status=status, headers=merged, body=body)


Handler = Callable[..., Response]


class Router:
    """Method + path-pattern dispatch. Patterns use ``{name}`` for one path segment."""

    def __init__(self, not_found: Callable[[Request], Response], bad_method: Callable[[Request], Response] | None = None) -> None:
        self._routes: list[tuple[re.Pattern[str], Sequence[str], Handler]] = []
        self._not_found = not_found
        self._bad_method = bad_method or not_found

    def add(self, methods: str | Sequence[str], pattern: str, handler: Handler) -> None:
        regex = "^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "/?$"
        names = (methods,) if isinstance(methods, str) else tuple(methods)
        self._routes.append((re.compile(regex), names, handler))

    def dispatch(self, request: Request) -> Response:
        path_matched = False
        for regex, methods, handler in self._routes:
            match = regex.match(request.path)
            if match is None:
                continue
            path_matched = True
            if request.method in methods:
                return handler(request, **match.groupdict())
        return self._bad_method(request) if path_matched else self._not_found(request)
