"""The gate on the server side: the same faults, carried out on real connections (loopback only)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from durable_harness.harness import CandidateCrashed, History
from durable_harness.harness._gate import Gate
from durable_harness.harness._loopback import LoopbackServers
from durable_harness.harness._realtime import RealTimeClock, WorldLock
from durable_harness.harness.faults import Trigger, get_fault_kind
from tests.core.test_gate import Counter
from durable_harness.wire import Request, Response


class Streamer(Counter):
    """The counter, plus ``GET /api/events``: three SSE events."""

    def handle(self, request: Request) -> Response:
        if request.path.endswith("/events"):
            def events() -> Iterator[bytes]:
                for n in range(1, 4):
                    yield f'data: {{"type": "tick", "event_id": "evt_{n}"}}\n\n'.encode()
            return Response(200, {"content-type": "text/event-stream"}, b"", stream=events)
        return super().handle(request)


class Served:
    def __init__(self, *faults: tuple[str, str, str, int, dict[str, Any]]) -> None:
        self.clock = RealTimeClock(100.0, WorldLock())
        self.history, self.service = History(), Streamer()
        built = [get_fault_kind(kind)(i, Trigger("counter", method, route, nth=nth), params)
                 for i, (kind, method, route, nth, params) in enumerate(faults)]
        self.gate = Gate(self.clock, self.history, [self.service], built)
        self.crashes: list[str] = []
        self.servers = LoopbackServers(self.gate, self.clock, process=lambda: "worker-1",
                                       on_crash=lambda crash: self.crashes.append(str(crash)))
        base = self.servers.start()["counter.test"]
        self.client = httpx.Client(base_url=f"{base}/api", timeout=5.0)

    def close(self) -> None:
        self.client.close()
        self.clock.stop()
        with self.clock.lock:
            self.servers.stop()


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    s = Served(*getattr(request, "param", ()))
    yield s
    s.close()


def test_a_request_is_dispatched_and_recorded_as_in_process(served: Served) -> None:
    assert served.client.post("/items", json={"x": 1}).json() == {"id": 1}
    assert served.client.get("/items").json() == [1]
    invoke, done = served.history.operations()[0]
    assert invoke.process == "worker-1" and invoke.data["route"] == "/items" and invoke.data["body"] == {"x": 1}
    assert done is not None and done.type == "ok" and done.data["committed"] is True


@pytest.mark.parametrize("served", [[("lose_response", "POST", "/items", 1, {"mode": "reset"})]], indirect=True)
def test_a_lost_response_commits_then_resets_the_connection(served: Served) -> None:
    with pytest.raises(httpx.TransportError):
        served.client.post("/items")
    assert served.service.items == [1]
    assert served.history.operations()[0][1].type == "info"  # type: ignore[union-attr]


@pytest.mark.parametrize("served", [[("lose_response", "POST", "/items", 1, {"mode": "timeout", "wait_s": 20})]],
                         indirect=True)
def test_a_lost_response_by_timeout_holds_the_answer_for_its_wait_on_the_runs_clock(served: Served) -> None:
    start = served.clock.now()
    with pytest.raises(httpx.TransportError):
        served.client.post("/items")
    assert served.clock.now() - start >= 20.0  # 0.2 real seconds at scale 100
    assert served.service.items == [1]


@pytest.mark.parametrize("served", [[("http_error", "POST", "/items", 1, {"status": 503, "retry_after_s": 7})]],
                         indirect=True)
def test_an_injected_status_is_answered_without_delivery(served: Served) -> None:
    response = served.client.post("/items")
    assert response.status_code == 503 and response.headers["retry-after"] == "7"
    assert served.service.items == []


@pytest.mark.parametrize("served", [[("crash", "POST", "/items", 1, {"point": "after"})]], indirect=True)
def test_a_crash_point_calls_the_driver_before_any_answer(served: Served) -> None:
    with pytest.raises(httpx.TransportError):
        served.client.post("/items")
    assert served.service.items == [1]
    assert len(served.crashes) == 1 and "after the fake committed" in served.crashes[0]
    assert served.history.of_type("crash")[0].process == "worker-1"
    assert issubclass(CandidateCrashed, BaseException)


@pytest.mark.parametrize("served", [[("drop_stream", "GET", "/events", 1, {"after_events": 1, "mode": "reset"})]],
                         indirect=True)
def test_a_stream_is_cut_mid_body_after_its_kth_event(served: Served) -> None:
    received = b""
    with pytest.raises(httpx.TransportError), served.client.stream("GET", "/events") as response:
        for chunk in response.iter_bytes():
            received += chunk
    assert received.startswith(b'data: {"type": "tick", "event_id": "evt_1"}\n\n')
    assert b"evt_3" not in received
    events = served.history.of_type("event")
    assert [e.data["event_id"] for e in events] == ["evt_1"]


def test_a_whole_stream_arrives_event_by_event(served: Served) -> None:
    with served.client.stream("GET", "/events") as response:
        body = b"".join(response.iter_bytes())
    assert body.count(b"data:") == 3
    assert [e.data["n"] for e in served.history.of_type("event")] == [1, 2, 3]


def test_every_accepted_connection_sends_without_nagle(served: Served) -> None:
    """An answer goes out as headers and then body; with Nagle's algorithm on, the body waits for the
    ACK of the headers, which the client's kernel delays (40 ms on Linux): every request of a run in
    real time would take that long. The connections the servers accepted must have it off."""
    with httpx.Client(base_url=served.client.base_url, timeout=5.0) as other:
        for client in (served.client, other):
            assert client.post("/items", json={"x": 1}).status_code == 201
        sockets = [conn.transport.get_extra_info("socket")
                   for server in served.servers._servers for conn in server.server_state.connections]
        assert len(sockets) == 2
        assert all(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) for sock in sockets)
