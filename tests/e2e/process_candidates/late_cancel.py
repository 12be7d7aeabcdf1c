"""The reference as a process, with the timing of a loaded machine made certain: a cancel reaches its
control plane only once the step has begun to send a write (or after ``LATE_CANCEL_WAIT_S`` real
seconds), and each write waits ``LATE_CANCEL_WRITE_S`` real seconds before its bytes leave. A cancel
sent as the agent asks for the first upload then arrives while the upload, decided before it, is
on its way: the acknowledgement must come after the upload reached the world, never before.

Run as ``python late_cancel.py`` (the same flags as ``serve``)."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any

import httpx

from durable_harness.candidates.reference import serve

WRITE_S = float(os.environ.get("LATE_CANCEL_WRITE_S", "0.5"))
WAIT_S = float(os.environ.get("LATE_CANCEL_WAIT_S", "2.0"))
_writing = threading.Event()  # a write has begun: its bytes leave in WRITE_S


class _SlowWrite(httpx.HTTPTransport):
    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method != "GET":
            _writing.set()
            time.sleep(WRITE_S)
        return super().handle_request(request)


_transport_init = serve.BatonTransport.__init__


def _slow_transport(self: serve.BatonTransport, baton: serve.Baton, clock: serve.Clock) -> None:
    _transport_init(self, baton, clock)
    self._inner = _SlowWrite(retries=0)


_handler = serve.handler


def _late_handler(plane: Any, baton: serve.Baton, clock: serve.Clock, health: Any) -> type:
    cls = _handler(plane, baton, clock, health)
    post = cls.do_POST

    def do_post(self: Any) -> None:
        if self.path.endswith("/cancel"):
            _writing.clear()
            _writing.wait(WAIT_S)  # bounded: the harness may wait for this answer before it answers a read
        post(self)
    cls.do_POST = do_post  # type: ignore[method-assign]
    return cls


serve.BatonTransport.__init__ = _slow_transport  # type: ignore[method-assign]
serve.handler = _late_handler

if __name__ == "__main__":
    sys.exit(serve.main())
