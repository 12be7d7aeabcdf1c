"""The gate's fault points, on a tiny counter service (no real fake needed)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from durable_harness.wire import Request, Response, json_response
from durable_harness.harness import CandidateCrashed, History, VirtualClock
from durable_harness.harness._gate import Gate
from durable_harness.harness._nemesis import Nemesis
from durable_harness.harness.faults import Trigger, get_fault_kind


class Counter:
    name = "counter"
    host = "counter.test"
    root = "/api"

    def __init__(self) -> None:
        self.items: list[int] = []

    def handle(self, request: Request) -> Response:
        if request.method == "POST":
            self.items.append(len(self.items) + 1)
            return json_response(201, {"id": self.items[-1]})
        return json_response(200, self.items)

    def mutations(self) -> int:
        return len(self.items)

    def credential(self, request: Request) -> str | None:
        return "token#1" if request.header("authorization") == "Bearer s3cret" else "anonymous"


def make(*faults: tuple[str, int, dict[str, Any]]) -> tuple[Gate, Counter, httpx.Client, History, VirtualClock]:
    clock, history, svc = VirtualClock(), History(), Counter()
    built = [get_fault_kind(kind)(i, Trigger("counter", "POST", "/items", nth=nth), params)
             for i, (kind, nth, params) in enumerate(faults)]
    gate = Gate(clock, history, [svc], built)
    client = httpx.Client(transport=gate.transport("worker-1"), base_url="http://counter.test/api",
                          headers={"authorization": "Bearer s3cret"})
    return gate, svc, client, history, clock


def test_delivery_is_recorded_as_an_operation_without_secrets() -> None:
    gate, svc, client, history, _ = make()
    assert client.post("/items", json={"x": 1}).json() == {"id": 1}
    invoke, done = history.operations()[0]
    assert invoke.data["route"] == "/items" and invoke.data["credential"] == "token#1"
    assert done is not None and done.type == "ok" and done.data["committed"] is True
    assert "s3cret" not in "".join(history.lines())


def test_lose_response_commits_then_times_out_on_the_virtual_clock() -> None:
    gate, svc, client, history, clock = make(("lose_response", 2, {"wait_s": 30}))
    client.post("/items")
    with pytest.raises(httpx.ReadTimeout):
        client.post("/items")
    assert svc.items == [1, 2]  # the write happened
    assert clock.now() == 30.0
    fault = history.of_type("fault")[0]
    assert fault.data["evidence"] == {"delivered": True, "committed": True, "status": 201, "lost": "timeout"}
    done = history.operations()[1][1]
    assert done is not None and done.type == "info" and done.data["body"] == {"id": 2}
    assert gate.faults[0].state.fired == 1


def test_lose_response_reset_mode() -> None:
    _, svc, client, _, clock = make(("lose_response", 1, {"mode": "reset"}))
    with pytest.raises(httpx.RemoteProtocolError):
        client.post("/items")
    assert svc.items == [1] and clock.now() == 0.0


def test_http_error_answers_before_delivery() -> None:
    _, svc, client, history, _ = make(("http_error", 1, {"status": 503, "retry_after_s": 7}))
    response = client.post("/items")
    assert response.status_code == 503 and response.headers["retry-after"] == "7"
    assert svc.items == []
    assert history.operations()[0][1].type == "info"  # type: ignore[union-attr]


@pytest.mark.parametrize(("point", "committed"), [("before", []), ("after", [1])])
def test_crash_raises_a_base_exception_at_the_point(point: str, committed: list[int]) -> None:
    _, svc, client, history, _ = make(("crash", 1, {"point": point}))
    with pytest.raises(CandidateCrashed):
        try:
            client.post("/items")
        except Exception:  # a candidate's broad except must not swallow its death
            pytest.fail("CandidateCrashed was caught by `except Exception`")
    assert svc.items == committed
    assert [e.type for e in history][-1] == "crash"


def test_refuse_connection_fails_before_delivery() -> None:
    _, svc, client, history, _ = make(("refuse_connection", 1, {}))
    with pytest.raises(httpx.ConnectError):
        client.post("/items")
    assert svc.items == []
    done = history.operations()[0][1]
    assert done is not None and done.type == "fail" and done.data["committed"] is False
    assert client.post("/items").status_code == 201


@pytest.mark.parametrize(("evidence", "fired"), [({"environment_id": "env1"}, 1), (None, 0)])
def test_a_world_effect_counts_as_fired_only_when_it_acted(evidence: dict[str, str] | None, fired: int) -> None:
    clock, history, svc = VirtualClock(), History(), Counter()
    fault = get_fault_kind("replace_executor")(0, Trigger("counter", "POST", "/items"), {})
    nemesis = Nemesis(clock, history, [fault], effects={"replace_executor": lambda params: evidence})
    gate = Gate(clock, history, [svc], nemesis)
    client = httpx.Client(transport=gate.transport("w"), base_url="http://counter.test/api")
    assert client.post("/items").status_code == 201  # the request itself is delivered either way
    assert fault.state.fired == fired and len(history.of_type("fault")) == fired


def test_heal_lifts_every_fault() -> None:
    gate, svc, client, history, _ = make(("http_error", 1, {"status": 500}))
    gate.heal()
    assert client.post("/items").status_code == 201
    assert gate.faults[0].state.fired == 0


def test_nth_and_times_select_exactly_the_matching_requests() -> None:
    clock, history, svc = VirtualClock(), History(), Counter()
    fault = get_fault_kind("http_error")(0, Trigger("counter", "POST", "/items", nth=2, times=2), {"status": 502})
    gate = Gate(clock, history, [svc], [fault])
    client = httpx.Client(transport=gate.transport("w"), base_url="http://counter.test/api")
    statuses = []
    for _ in range(4):
        client.get("/items")  # never matches: another method
        statuses.append(client.post("/items").status_code)
    assert statuses == [201, 502, 502, 201]
    assert fault.state.fired == 2


def test_unknown_fault_kind_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="lose_response"):
        get_fault_kind("lose_everything")


class Events:
    """A toy SSE service: three events per stream."""

    name, host, root = "events", "events.test", ""

    def handle(self, request: Request) -> Response:
        def body() -> Any:
            for n in range(3):
                yield f"event: tick\ndata: {{\"n\": {n}}}\n\n".encode()
        return Response(200, {"content-type": "text/event-stream"}, stream=body)

    def mutations(self) -> int:
        return 0

    def credential(self, request: Request) -> str | None:
        return None


@pytest.mark.parametrize(("mode", "after", "expect_error"), [("eof", 2, False), ("reset", 1, True), ("eof", 0, False)])
def test_drop_stream_cuts_after_k_events(mode: str, after: int, expect_error: bool) -> None:
    clock, history = VirtualClock(), History()
    fault = get_fault_kind("drop_stream")(0, Trigger("events", "GET", "/stream"), {"after_events": after, "mode": mode})
    client = httpx.Client(transport=Gate(clock, history, [Events()], [fault]).transport("w"), base_url="http://events.test")
    received = b""
    error = None
    with client.stream("GET", "/stream") as response:
        try:
            for chunk in response.iter_bytes():
                received += chunk
        except httpx.RemoteProtocolError as err:
            error = err
    complete = received.count(b"\n\n")
    assert complete == after
    assert (error is not None) == expect_error
    assert history.of_type("fault")[0].data["evidence"] == {"events_delivered": after, "mode": mode}
    assert [e.data["n"] for e in history.of_type("event")] == list(range(1, after + 1))


def test_duplicate_events_delivers_event_k_twice_and_records_it() -> None:
    clock, history = VirtualClock(), History()
    fault = get_fault_kind("duplicate_events")(0, Trigger("events", "GET", "/stream"), {"events": [2]})
    client = httpx.Client(transport=Gate(clock, history, [Events()], [fault]).transport("w"), base_url="http://events.test")
    body = client.get("/stream").content.decode()
    assert [line for line in body.splitlines() if line.startswith("data:")] == [
        'data: {"n": 0}', 'data: {"n": 1}', 'data: {"n": 1}', 'data: {"n": 2}']
    assert [e.data.get("duplicate", False) for e in history.of_type("event")] == [False, False, True, False]
    assert fault.state.fired == 1


def test_a_cut_beyond_the_end_of_the_stream_does_not_count_as_fired() -> None:
    fault = get_fault_kind("drop_stream")(0, Trigger("events", "GET", "/stream"), {"after_events": 9})
    client = httpx.Client(transport=Gate(VirtualClock(), History(), [Events()], [fault]).transport("w"), base_url="http://events.test")
    assert client.get("/stream").content.count(b"\n\n") == 3
    assert fault.state.fired == 0


def test_unfaulted_stream_passes_whole() -> None:
    client = httpx.Client(transport=Gate(VirtualClock(), History(), [Events()]).transport("w"), base_url="http://events.test")
    assert client.get("/stream").content.count(b"\n\n") == 3
