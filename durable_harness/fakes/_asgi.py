"""A thin ASGI adapter (Starlette) that serves any fake on a real socket, e.g. with uvicorn.

``asgi_app(service)`` is an ASGI application that translates each HTTP request into a
``fakes.Request``, calls ``service.handle`` and translates the ``fakes.Response`` back: a plain
body as a Starlette ``Response``, a streamed one (SSE) as a ``StreamingResponse`` that pulls the
fake's chunk generator one chunk at a time.

Everything runs on the server's event loop thread, one step at a time: ``handle`` and each step
of a stream are synchronous and short (the fakes are in-memory state machines on a virtual
clock), so requests are serialised without locks and the fakes never see two threads. A stream
yields to the loop after every chunk; when the client goes away mid-stream, the fake's generator
is closed, which ends its subscription.

What it deliberately does not do: faults (the gate or a Toxiproxy-compatible proxy does them),
authentication, routing between fakes, lifespan events beyond acknowledging them, websockets,
or firing the virtual clock's timers (a caller can wrap the service to do that before each
request, as the gate does).
"""

from __future__ import annotations

import asyncio

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, MutableMapping
from typing import Any, Protocol

from anyio.lowlevel import checkpoint
from starlette.requests import Request as StarletteRequest
from starlette.responses import Response as StarletteResponse
from starlette.responses import StreamingResponse

from durable_harness.wire import Request, Response

__all__ = ["Handler", "asgi_app"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class Handler(Protocol):
    """What the adapter needs of a fake: the gate's ``Service`` fits."""

    def handle(self, request: Request) -> Response: ...


def asgi_app(service: Handler) -> ASGIApp:
    """An ASGI app serving ``service`` at the server's root (paths go to the fake unchanged)."""
    if not callable(getattr(service, "handle", None)):
        raise TypeError(f"service={service!r} must have handle(fakes.Request) -> fakes.Response")

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            raise RuntimeError(f"asgi_app serves HTTP only, not {scope['type']!r} (start uvicorn with ws='none')")
        incoming = StarletteRequest(scope, receive)
        request = Request.build(incoming.method, incoming.url.path, scope.get("query_string", b"").decode("latin-1"),
                                dict(incoming.headers), await incoming.body())
        response = service.handle(request)
        await _translate(response)(scope, receive, send)

    return app


def _translate(response: Response) -> StarletteResponse:
    headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
    if response.stream is None:
        return StarletteResponse(content=response.body, status_code=response.status, headers=headers)
    return StreamingResponse(_chunks(response.stream), status_code=response.status, headers=headers)


KEEPALIVE_PACE_S = 0.02


async def _chunks(stream: Callable[[], Iterator[bytes]]) -> AsyncIterator[bytes]:
    iterator = stream()
    try:
        for chunk in iterator:
            if chunk:
                yield chunk
            if chunk.startswith(b":"):
                # A comment is a keepalive: nothing is happening. On a real socket, pace the quiet
                # in real time, or a stream on an idle session would spin through its virtual
                # keepalives (and its idle close) faster than any client reads them.
                await asyncio.sleep(KEEPALIVE_PACE_S)
            else:
                # A send to a fast (or gone) client may not suspend: let other requests and Starlette's
                # disconnect listener run between steps, so a stream never monopolises the loop.
                await checkpoint()
    finally:
        close = getattr(iterator, "close", None)
        if callable(close):
            close()


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
