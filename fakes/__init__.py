"""The simulated outside world: pure state machines behind framework-free HTTP routes.

``asgi_app(service)`` serves any of them on a real socket (uvicorn) through a thin ASGI adapter.
"""

from fakes._asgi import asgi_app
from fakes._http import Request, Response, Router, json_response

__all__ = ["Request", "Response", "Router", "asgi_app", "json_response"]
