"""``Service``: a fake as the gate sees it (in a module of its own, so that the services' registry
can name it without importing the gate)."""

from __future__ import annotations

from typing import Protocol

from durable_harness.wire import Request, Response

__all__ = ["Service"]


class Service(Protocol):
    """A fake as the gate sees it."""

    name: str
    host: str
    root: str  # path prefix of the service's API below the host, e.g. "/wp-json"

    def handle(self, request: Request) -> Response: ...
    def mutations(self) -> int: ...
    def credential(self, request: Request) -> str | None: ...
