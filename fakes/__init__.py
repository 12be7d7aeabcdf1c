"""The simulated outside world: pure state machines behind framework-free HTTP routes."""

from fakes._http import Request, Response, Router, json_response

__all__ = ["Request", "Response", "Router", "json_response"]
