"""The simulated outside world: pure state machines behind framework-free HTTP routes.

They speak the shared wire types (``durable_harness.wire.Request`` -> ``durable_harness.wire.Response``). ``asgi_app(service)``
serves any of them on a real socket (uvicorn) through a thin ASGI adapter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from durable_harness._lazy import load, names

if TYPE_CHECKING:
    from durable_harness.fakes._asgi import asgi_app
    from durable_harness.fakes._http import Router

__all__ = ["Router", "asgi_app"]

_WHERE = {"asgi_app": "durable_harness.fakes._asgi", "Router": "durable_harness.fakes._http"}


def __getattr__(name: str) -> Any:
    return load(globals(), _WHERE, name)


def __dir__() -> list[str]:
    return names(globals())
