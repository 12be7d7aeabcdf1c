"""The world serves itself to a candidate process (``World.serve``): each worker its own loopback
servers, behind Toxiproxy proxies (and with the ``toxic`` effect and its heal on the nemesis) only
when a fault of the scenario acts on the network; what a failed start started is closed again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from durable_harness.harness import CandidateCrashed
from durable_harness.harness._errors import HarnessError
from durable_harness.harness._idleness import CLOCK_HOST
from durable_harness.harness._loopback import LoopbackServers
from durable_harness.harness._network import Network
from durable_harness.harness._realtime import RealTimeClock
from durable_harness.harness._serving import Served
from durable_harness.harness._world import World
from durable_harness.harness.scenario import load_scenario

SCENARIOS = Path(__file__).parents[2] / "durable_harness" / "scenarios"


def _crashed(crash: CandidateCrashed) -> None:
    raise AssertionError(f"no crash point here: {crash}")


class Serving:
    """Worlds on real time to serve from; what they served is closed after the test, as a driver closes it."""

    def __init__(self, workdir: Path) -> None:
        self._workdir = workdir
        self._served: list[tuple[World, Served | None]] = []

    def world(self, scenario: str) -> World:
        world = World(load_scenario(SCENARIOS / scenario), 7, self._workdir, time_scale=10.0)
        self._served.append((world, None))
        return world

    def serve(self, world: World, worker_id: str) -> Served:
        with world.lock:
            served = world.serve(worker_id, _crashed)
        self._served.append((world, served))
        return served

    def close(self) -> None:
        for world, served in self._served:
            assert isinstance(world.clock, RealTimeClock)
            world.clock.stop()  # as the driver closes: the run's time over, then what was served
            if served is not None:
                with world.lock:
                    served.close()
        for world, _ in self._served:
            world.close()


@pytest.fixture
def serving(tmp_path: Path) -> Iterator[Serving]:
    s = Serving(tmp_path)
    yield s
    s.close()


def test_each_worker_gets_its_own_servers_and_no_proxies_without_a_network_fault(serving: Serving) -> None:
    world = serving.world("baseline.yaml")
    first, second = serving.serve(world, "worker-1"), serving.serve(world, "worker-2")
    hosts = {b.fake.host for b in world.services.values()}
    assert set(first.bases) == set(second.bases) == hosts | {CLOCK_HOST}  # and each its own clock service
    assert first.clock_url != second.clock_url
    assert not set(first.bases.values()) & set(second.bases.values())  # the port says whose request it is
    assert first.note == {} and first.network is None and "toxic" not in world.nemesis.effects
    assert world.nemesis.on_heal == []
    httpx.get(f"{second.bases[world.services['wordpress'].fake.host]}/", timeout=5.0)
    assert world.requests == 1 and world.history.operations()[0][0].process == "worker-2"


def test_a_network_fault_puts_a_proxy_in_front_of_each_service_with_the_toxic_effect(serving: Serving) -> None:
    world = serving.world("network/sessions-api-down.yaml")
    one = serving.serve(world, "worker-1")
    assert one.note == {"toxiproxy": "embedded"} and one.network is not None
    assert world.nemesis.effects["toxic"] == one.toxic and world.nemesis.on_heal == [one.network.heal]
    host = world.services["wordpress"].fake.host
    httpx.get(f"{one.bases[host]}/", timeout=5.0)  # through the proxy, to the gate
    assert world.requests == 1
    assert one.toxic({"service": "wordpress", "type": "down"}) == {"service": "wordpress", "type": "down",
                                                                  "server": "embedded"}
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{one.bases[host]}/", timeout=5.0)
    world.nemesis.on_heal[0]()  # the heal brings the proxy up again
    httpx.get(f"{one.bases[host]}/", timeout=5.0)
    assert world.requests == 2


def test_a_world_on_virtual_time_is_not_served(tmp_path: Path) -> None:
    world = World(load_scenario(SCENARIOS / "baseline.yaml"), 7, tmp_path)
    with pytest.raises(HarnessError, match="time_scale"):
        world.serve("worker-1", _crashed)
    world.close()


def test_what_a_failed_start_started_is_closed_again(serving: Serving, monkeypatch: pytest.MonkeyPatch) -> None:
    stopped: list[str] = []
    stop = LoopbackServers.stop

    def counted_stop(self: LoopbackServers) -> None:
        stopped.append("servers")
        stop(self)

    def front(self: Network, bases: object) -> dict[str, str]:
        raise HarnessError("the embedded Toxiproxy server did not start")

    monkeypatch.setattr(LoopbackServers, "stop", counted_stop)
    monkeypatch.setattr(Network, "front", front)
    world = serving.world("network/sessions-api-down.yaml")
    with pytest.raises(HarnessError, match="Toxiproxy"), world.lock:
        world.serve("worker-1", _crashed)
    assert stopped == ["servers"] and "toxic" not in world.nemesis.effects
