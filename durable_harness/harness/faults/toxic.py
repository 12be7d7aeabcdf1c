"""``toxic``: a network fault on the wire between a candidate process and a service, through Toxiproxy.

When the trigger's request arrives, a toxic of Toxiproxy's (``type``: ``latency``, ``bandwidth``,
``slow_close``, ``timeout``, ``reset_peer``, ``limit_data``, ``slicer``) is added to the proxy in
front of ``service`` (default: the trigger's service), on its ``stream`` (``downstream``, the
answers, by default; ``upstream``, the requests) with its ``toxicity`` and ``attributes``; or, with
``type: down``, the proxy is disabled (its connections dropped, new ones refused). It lasts
``for_s`` seconds of the run's time, or until the world heals. A toxic acts on the connections
already open too: a latency added as a write arrives delays that write's answer (the service
committed it; a client whose timeout is shorter gives up), a ``reset_peer`` added as a stream is
opened resets it at its next bytes.

Times among the attributes are scenario time (see ``_network``). Only the process driver has a
network between the candidate and the services: in-process, a scenario with this fault cannot run
(exit 3, said as such).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from durable_harness.harness.faults._base import Action, Effect, FaultContext
from durable_harness.harness.faults._registry import fault_kind
from durable_harness.harness.faults._request_fault import RequestFault

__all__ = ["NetworkToxic"]

# Each toxic's attributes (Toxiproxy 2.x); ``down`` is the proxy disabled, with none.
ATTRIBUTES = {"latency": ("latency", "jitter"), "bandwidth": ("rate",), "slow_close": ("delay",),
              "timeout": ("timeout",), "reset_peer": ("timeout",), "limit_data": ("bytes",),
              "slicer": ("average_size", "size_variation", "delay"), "down": ()}


@fault_kind("toxic")
class NetworkToxic(RequestFault):
    point = "before"
    drivers = ("process",)
    network = True
    required_params = ("type",)
    params_schema = {
        "type": {"enum": sorted(ATTRIBUTES), "description": "a Toxiproxy toxic, or down (the proxy disabled)"},
        "service": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$",
                    "description": "whose proxy (default: the trigger's service)"},
        "stream": {"enum": ["downstream", "upstream"], "default": "downstream"},
        "toxicity": {"type": "number", "minimum": 0, "maximum": 1, "default": 1},
        "attributes": {"type": "object", "maxProperties": 3,
                       "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 86_400_000}},
        "for_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 86400,
                  "description": "how long it lasts (default: until the world heals)"},
    }

    @classmethod
    def param_problem(cls, params: Mapping[str, Any]) -> tuple[str, str] | None:
        kind = params.get("type")
        known = ATTRIBUTES.get(str(kind), ())
        for name in params.get("attributes") or {}:
            if name not in known:
                return "attributes", (f"{name!r} is not an attribute of the {kind} toxic (its attributes: "
                                      f"{', '.join(known) or 'none'})")
        return None

    def action(self, ctx: FaultContext) -> Action:
        service = self.param("service") or ctx.service
        return Effect("toxic", {"service": service, "type": self.param("type"), "stream": self.param("stream"),
                                "toxicity": self.param("toxicity"), "attributes": dict(self.param("attributes") or {}),
                                "for_s": self.param("for_s")})
