"""The API's HTTP/1.1 framing on asyncio streams: read a request, write a response, keep the connection.

Enough of HTTP/1.1 for API clients (``requests``, ``httpx``, curl, Toxiproxy's own clients): a
request line and headers, a body by Content-Length or chunked, keep-alive unless the client asks
to close (or speaks HTTP/1.0). Every read has a deadline (``READ_TIMEOUT_S`` for a request once it
has begun, ``IDLE_TIMEOUT_S`` between requests, as Go's server has) and a size limit; a request it
cannot read is answered 400 and the connection closed.

What it deliberately does not do: routing or JSON (``_api``), TLS, pipelining beyond answering in
order, ``Expect: 100-continue``, or a Date header (that would read the wall clock).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from urllib.parse import unquote

__all__ = ["HttpRequest", "HttpResponse", "serve_http"]

READ_TIMEOUT_S = 15.0
IDLE_TIMEOUT_S = 60.0
MAX_HEAD_BYTES = 64 * 1024
MAX_BODY_BYTES = 4 * 1024 * 1024


class _BadRequest(Exception):
    pass


@dataclass(frozen=True)
class HttpRequest:
    method: str
    path: str  # percent-decoded, without the query
    headers: dict[str, str]  # names lower-cased
    body: bytes
    keep_alive: bool


@dataclass(frozen=True)
class HttpResponse:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[HttpRequest], Awaitable[HttpResponse]]


async def _read_request(reader: asyncio.StreamReader) -> HttpRequest | None:
    """The next request, or None when the client closed between requests."""
    try:
        async with asyncio.timeout(IDLE_TIMEOUT_S):
            first = await reader.readline()
    except TimeoutError:
        return None
    if not first.strip():
        return None
    async with asyncio.timeout(READ_TIMEOUT_S):
        parts = first.decode("latin-1").split()
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            raise _BadRequest(f"malformed request line {first!r}")
        method, target, version = parts
        headers: dict[str, str] = {}
        head_bytes = len(first)
        while (line := await reader.readline()).strip():
            head_bytes += len(line)
            if head_bytes > MAX_HEAD_BYTES or not line.endswith(b"\n"):
                raise _BadRequest("request header too large or cut short")
            name, sep, value = line.decode("latin-1").partition(":")
            if not sep:
                raise _BadRequest(f"malformed header line {line!r}")
            headers[name.strip().lower()] = value.strip()
        body = await _read_body(reader, headers)
    connection = headers.get("connection", "").lower()
    keep_alive = connection != "close" and (version != "HTTP/1.0" or connection == "keep-alive")
    return HttpRequest(method, unquote(target.split("?", 1)[0]), headers, body, keep_alive)


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while True:
            size_line = await reader.readline()
            try:
                size = int(size_line.split(b";", 1)[0].strip() or b"x", 16)
            except ValueError as exc:
                raise _BadRequest(f"malformed chunk size {size_line!r}") from exc
            if size == 0:
                while (await reader.readline()).strip():  # trailers
                    pass
                return body
            if len(body) + size > MAX_BODY_BYTES:
                raise _BadRequest("request body too large")
            body += await reader.readexactly(size)
            await reader.readline()
    length_text = headers.get("content-length", "0")
    if not length_text.isdigit() or int(length_text) > MAX_BODY_BYTES:
        raise _BadRequest(f"bad content-length {length_text!r}")
    return await reader.readexactly(int(length_text))


def _render(response: HttpResponse, keep_alive: bool) -> bytes:
    reason = HTTPStatus(response.status).phrase
    lines = [f"HTTP/1.1 {response.status} {reason}"]
    lines += [f"{name}: {value}" for name, value in response.headers.items()]
    if response.status != 204:
        lines.append(f"Content-Length: {len(response.body)}")
    if not keep_alive:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + response.body


async def serve_http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, handler: Handler) -> None:
    """Answer requests on one connection until the client closes, asks to, or sends something unreadable."""
    try:
        while True:
            try:
                request = await _read_request(reader)
            except (_BadRequest, asyncio.IncompleteReadError, ValueError, TimeoutError) as exc:
                bad = HttpResponse(400, f"400 Bad Request: {exc}\n".encode(),
                                   {"Content-Type": "text/plain; charset=utf-8"})
                writer.write(_render(bad, keep_alive=False))
                await writer.drain()
                return
            if request is None:
                return
            response = await handler(request)
            writer.write(_render(response, request.keep_alive))
            await writer.drain()
            if not request.keep_alive:
                return
    except OSError:
        return
    finally:
        writer.close()
        with contextlib.suppress(OSError, TimeoutError):
            async with asyncio.timeout(READ_TIMEOUT_S):
                await writer.wait_closed()
