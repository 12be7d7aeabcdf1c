"""Starting and stopping the embedded server: bounded, everything closed (no task, socket or thread
left; a ResourceWarning would fail the test), a busy port a clear error; and the pure parts (slice
sizes, jitter, the toxic registry, Go's JSON) checked without sockets."""

from __future__ import annotations

import asyncio
import gc
import random
import socket
import threading

import httpx
import pytest
from toxiproxy import Toxiproxy
from toxiproxy.api import APIConsumer

from _toxiproxy_world import WAIT_S, HttpUpstream, connect, recv_until
from durable_harness.fakes.toxiproxy import TOXIC_TYPES, ToxiproxyError, ToxiproxyServer, ToxiproxyThread
from durable_harness.fakes.toxiproxy._model import go_json
from durable_harness.fakes.toxiproxy._toxics import LatencyToxic, Toxic, slice_sizes


def _server_threads() -> list[str]:
    """The threads a server runs: its own and its event loop's executor (other tests' helpers may linger)."""
    return [t.name for t in threading.enumerate() if t.name.startswith(("toxiproxy", "asyncio"))]


def test_a_busy_api_port_is_a_clear_error_and_leaves_no_thread() -> None:
    with socket.create_server(("127.0.0.1", 0)) as holder:
        port = holder.getsockname()[1]
        server = ToxiproxyThread(rng=random.Random(1), port=port)
        with pytest.raises(ToxiproxyError, match=rf"cannot listen on 127\.0\.0\.1:{port} .*address already in use"):
            server.start()
    assert _server_threads() == []


@pytest.mark.parametrize("kwargs, error", [
    ({"rng": random.Random(1), "host": "0.0.0.0"}, "host='0.0.0.0' must be a loopback address"),
    ({"rng": random.Random(1), "port": 70000}, "port=70000 must be in 0..65535"),
    ({"rng": random.Random(1), "dial_timeout_s": 0}, "dial_timeout_s=0 must be above 0"),
    ({"rng": 7}, "rng=7 must be a random.Random"),
])
def test_bad_arguments_are_named(kwargs: dict[str, object], error: str) -> None:
    with pytest.raises((ValueError, TypeError), match=error.replace(".", r"\.")):
        ToxiproxyServer(**kwargs)  # type: ignore[arg-type]


def test_stop_closes_proxies_and_held_connections_promptly(http_upstream: HttpUpstream) -> None:
    saved = (APIConsumer.host, APIConsumer.port)
    try:
        with ToxiproxyThread(rng=random.Random(1), stop_timeout_s=5) as server:
            client = Toxiproxy()
            client.update_api_consumer("127.0.0.1", server.port)
            held = client.create(upstream=http_upstream.address, name="held")
            held.add_toxic(type="timeout", attributes={"timeout": 0})
            slow = client.create(upstream=http_upstream.address, name="slow")
            slow.add_toxic(type="latency", stream="upstream", attributes={"latency": 60_000})
            sockets = [connect(held.listen), connect(slow.listen)]
            for sock in sockets:
                sock.sendall(b"GET /hello HTTP/1.1\r\nHost: upstream\r\n\r\n")
            api_port = server.port
    finally:
        APIConsumer.host, APIConsumer.port = saved
    received = []
    for sock in sockets:
        with sock:
            received.append(recv_until(sock, b"hello"))
    assert received == [b"", b""]  # closed by the stop, nothing delivered
    for listen in (held.listen, slow.listen, f"127.0.0.1:{api_port}"):
        with pytest.raises(ConnectionRefusedError):
            connect(listen).close()
    gc.collect()
    assert _server_threads() == []


def test_on_the_callers_event_loop_nothing_is_left_behind(http_upstream: HttpUpstream) -> None:
    async def scenario() -> set[asyncio.Task[object]]:
        async with ToxiproxyServer(rng=random.Random(3)) as server:
            async with httpx.AsyncClient(base_url=server.url, timeout=WAIT_S) as api:
                created = await api.post("/proxies", json={"name": "svc", "upstream": http_upstream.address})
                listen = created.json()["listen"]
                await api.post("/proxies/svc/toxics", json={"type": "slicer", "attributes": {"average_size": 3}})
            async with httpx.AsyncClient(base_url=f"http://{listen}", timeout=WAIT_S) as through:
                assert (await through.get("/hello")).text == "hello"
                reader, writer = await asyncio.open_connection(*listen.rsplit(":", 1))
        assert await reader.read() == b""  # the stop closed the open connection
        writer.close()
        await writer.wait_closed()
        return asyncio.all_tasks() - {asyncio.current_task()}  # type: ignore[operator]

    assert asyncio.run(scenario()) == set()


def test_a_server_can_be_restarted_on_the_same_port() -> None:
    with ToxiproxyThread(rng=random.Random(1)) as first:
        port = first.port
    with ToxiproxyThread(rng=random.Random(1), port=port) as second:
        assert second.url == f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=second.url, timeout=WAIT_S) as api:
            assert api.get("/version").status_code == 200


# -- the pure parts -----------------------------------------------------------------------------------
def test_slice_sizes_are_seeded_bounded_and_complete() -> None:
    sizes = slice_sizes(480_000, 1000, 200, random.Random(5))
    assert sum(sizes) == 480_000
    assert all(800 <= size <= 1200 for size in sizes[:-1]) and 1 <= sizes[-1] <= 1200
    assert 400 <= len(sizes) <= 600
    assert sizes == slice_sizes(480_000, 1000, 200, random.Random(5))
    assert slice_sizes(24, 1, 0, random.Random(5)) == [1] * 24
    assert slice_sizes(10, 3, 5, random.Random(5)) and all(s >= 1 for s in slice_sizes(10, 3, 5, random.Random(5)))


def test_jitter_is_seeded_and_within_its_bounds() -> None:
    latency = LatencyToxic({"latency": 100, "jitter": 20})
    draws = [latency.delay_s(random.Random(9)) for _ in range(3)]
    assert len(set(draws)) == 1  # the same seed, the same delay
    rng = random.Random(9)
    delays = [latency.delay_s(rng) for _ in range(500)]
    assert all(0.080 <= d < 0.120 for d in delays) and len(set(delays)) > 10
    assert LatencyToxic({"latency": 100, "jitter": 0}).delay_s(random.Random(1)) == 0.1


def test_toxic_types_are_registered_once_by_name() -> None:
    assert TOXIC_TYPES == ("bandwidth", "latency", "limit_data", "noop", "reset_peer", "slicer", "slow_close",
                           "timeout")
    with pytest.raises(TypeError, match="'latency' is registered twice"):
        type("AnotherLatency", (Toxic,), {"type_name": "latency"})


def test_json_as_go_writes_it() -> None:
    assert go_json({"a": [1, 0.5], "b": "<&>", "c": None, "d": "é"}) == (
        '{"a":[1,0.5],"b":"\\u003c\\u0026\\u003e","c":null,"d":"é"}'.encode())
