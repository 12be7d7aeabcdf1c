"""Framework-free HTTP messages: the request and response the gate and the fakes exchange.

The gate builds a ``Request`` from an ``httpx.Request`` in-process; the ASGI adapter builds one
from Starlette; every fake answers with a ``Response``. Neither side imports an HTTP framework for
these, and neither owns them: this package sits between the engine and the simulated services.

What it deliberately does not do: routing (``fakes`` has its router), networking, streaming of
unbounded bodies, or parsing beyond JSON, urlencoded forms and multipart/form-data.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import parse_qsl

from durable_harness.wire._multipart import Form, parse_form

__all__ = ["Request", "Response", "json_response"]


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: tuple[tuple[str, str], ...] = ()
    headers: Mapping[str, str] = field(default_factory=dict)  # lower-case names
    body: bytes = b""
    # When the request reached the world, in scenario seconds (set by the gate; None elsewhere). A
    # fact that depends on what the sender could know is judged at this instant, not at delivery,
    # which comes later when the sender is another process and time is real.
    sent_s: float | None = None

    @classmethod
    def build(cls, method: str, path: str, query_string: str = "",
              headers: Mapping[str, str] | None = None, body: bytes = b"", sent_s: float | None = None) -> Request:
        return cls(
            method=method.upper(),
            path=path,
            query=tuple(parse_qsl(query_string, keep_blank_values=True)),
            headers={k.lower(): v for k, v in (headers or {}).items()},
            body=body,
            sent_s=sent_s,
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
        """Fields and files of a urlencoded or multipart body: ({name: value}, {name: (filename, type, bytes)}).
        The body is parsed once per request, however many readers it has (the gate, the service);
        each gets its own dictionaries."""
        fields, files = self._form
        return dict(fields), dict(files)

    @cached_property
    def _form(self) -> Form:
        if self.content_type == "application/x-www-form-urlencoded":
            return dict(parse_qsl(self.body.decode("utf-8"), keep_blank_values=True)), {}
        if self.content_type != "multipart/form-data":
            return {}, {}
        return parse_form(self.header("content-type") or "", self.body)


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
