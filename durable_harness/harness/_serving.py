"""The world served to one candidate process: its loopback servers, behind proxies when the network is faulted.

``serve`` starts one worker's loopback servers (``_loopback``: its own, so that the port says whose
request it is) and, when asked, puts a Toxiproxy proxy in front of each service (``_network``).
``Served`` is what the worker was served: the base URL of each service host, the ``toxic`` effect
and ``close``, which its driver calls when it closes (after it killed the candidate and stopped the
run's time).

It deliberately neither wires the nemesis (``World.serve`` does) nor records anything in the
history (the driver notes what it was served).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from durable_harness.harness._gate import Gate
from durable_harness.harness._idleness import CLOCK_HOST, Idleness
from durable_harness.harness._loopback import LoopbackServers
from durable_harness.harness._network import Network, toxiproxy_url
from durable_harness.harness._realtime import RealTimeClock
from durable_harness.harness._seeds import component_random
from durable_harness.harness.candidate._protocol import CandidateCrashed

__all__ = ["Served", "serve"]


class Served:
    """One worker's servers and, when the network is faulted, the proxies in front of them."""

    def __init__(self, servers: LoopbackServers, clock: RealTimeClock) -> None:
        self._servers = servers
        self._clock = clock
        self.network: Network | None = None
        self.bases: dict[str, str] = {}  # service host -> the base URL the candidate is given for it
        self.closed = False

    @property
    def note(self) -> dict[str, Any]:
        """What the driver's note records of it: which Toxiproxy serves the proxies, if there are any."""
        return {} if self.network is None else {"toxiproxy": self.network.server}

    @property
    def idleness(self) -> Idleness:
        """Whether the worker is idle, if it takes its time from the harness (``_idleness``)."""
        return self._servers.idleness

    @property
    def clock_url(self) -> str:
        """The worker's clock service (``HARNESS_CLOCK_URL``)."""
        return self._servers.bases[CLOCK_HOST]

    @property
    def dispatching(self) -> int:
        """Requests of the candidate in progress on its servers: it waits for an answer."""
        return self._servers.dispatching

    def arrived(self) -> None:
        """With the world held: wait until the gate has taken every request already on the servers'
        sockets (``LoopbackServers.arrived``)."""
        self._servers.arrived()

    def toxic(self, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """The world effect of a ``toxic`` fault: on the proxy now, off after ``for_s`` (or at the heal)."""
        network = self.network
        assert network is not None
        evidence = network.apply(params)
        if evidence is not None and params.get("for_s"):
            self._clock.call_later(float(params["for_s"]), network.remover(evidence))
        return evidence

    def close(self) -> None:
        """Destroy the proxies, then stop the servers (waiting, bounded, for the requests in progress)."""
        self.closed = True
        try:
            if self.network is not None:
                self.network.close()
        finally:
            self._servers.stop()


def serve(gate: Gate, clock: RealTimeClock, worker_id: str, on_crash: Callable[[CandidateCrashed], None], *,
          proxied: Mapping[str, str] | None, seed: int) -> Served:
    """Serve every service of the gate to ``worker_id``; with ``proxied`` (service name -> host), a proxy
    in front of each of those, seeded from ``seed``. What was started is closed again if a start fails."""
    servers = LoopbackServers(gate, clock, process=lambda: worker_id, on_crash=on_crash)
    served = Served(servers, clock)
    try:
        bases = servers.start()
        if proxied is not None:
            network = served.network = Network(rng=component_random(seed, "toxiproxy"), scale=clock.scale,
                                               url=toxiproxy_url(os.environ))
            fronted = network.front({name: bases[host] for name, host in proxied.items()})
            bases = {**bases, **{host: fronted[name] for name, host in proxied.items()}}
    except BaseException:
        served.close()
        raise
    served.bases = bases
    return served
