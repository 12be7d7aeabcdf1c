"""The simulated outside world: pure state machines behind framework-free HTTP routes.

They speak the shared wire types (``durable_harness.wire.Request`` -> ``durable_harness.wire.Response``). ``asgi_app(service)``
serves any of them on a real socket (uvicorn) through a thin ASGI adapter.
"""

from durable_harness.fakes._asgi import asgi_app
from durable_harness.fakes._http import Router

__all__ = ["Router", "asgi_app"]
