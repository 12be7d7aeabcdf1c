"""The wire types shared by the engine's gate and the simulated services (``fakes``)."""

from durable_harness.wire._http import Request, Response, json_response

__all__ = ["Request", "Response", "json_response"]
