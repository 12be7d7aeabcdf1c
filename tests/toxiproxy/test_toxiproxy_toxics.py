"""Behaviour: every toxic through real loopback sockets — a client in front of the embedded server, an
HTTP or TCP service behind it — asserted on bytes and their order. One test (bandwidth) checks a
duration, with a generous bound."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

import httpx
import pytest
from toxiproxy import Toxiproxy
from toxiproxy.proxy import Proxy

from _toxiproxy_world import WAIT_S, HttpUpstream, TcpUpstream, connect, pattern, recv_all, recv_until

MakeTcp = Callable[[Callable[[socket.socket], None]], TcpUpstream]
STREAM_REQUEST = b"GET /stream HTTP/1.1\r\nHost: upstream\r\n\r\n"


def _echo(conn: socket.socket) -> None:
    while data := conn.recv(65536):
        conn.sendall(data)


def _send_then_close(payload: bytes) -> Callable[[socket.socket], None]:
    def handler(conn: socket.socket) -> None:
        conn.sendall(payload)
    return handler


def _nothing_arrives(sock: socket.socket, within_s: float = 0.3) -> bool:
    """True when neither data nor the end of the stream arrives within ``within_s``."""
    sock.settimeout(within_s)
    try:
        sock.recv(65536)
    except TimeoutError:
        return True
    finally:
        sock.settimeout(WAIT_S)
    return False


def test_pass_through_is_byte_exact_both_ways_and_passes_a_half_close(client: Toxiproxy,
                                                                       tcp_upstream: MakeTcp) -> None:
    proxy = client.create(upstream=tcp_upstream(_echo).address, name="echo")
    payload = pattern(3_000_000)
    with connect(proxy.listen) as sock:
        sender = threading.Thread(target=lambda: (sock.sendall(payload), sock.shutdown(socket.SHUT_WR)))
        sender.start()
        echoed = recv_all(sock)  # the end arrives only once the half-close went through and back
        sender.join(WAIT_S)
    assert echoed == payload


def test_latency_beyond_the_client_timeout(client: Toxiproxy, http_upstream: HttpUpstream) -> None:
    """The write reaches the service and commits; the answer is held; the client gives up."""
    proxy = client.create(upstream=http_upstream.address, name="wordpress")
    proxy.add_toxic(type="latency", attributes={"latency": 3000})
    with httpx.Client(base_url=f"http://{proxy.listen}", timeout=0.3) as impatient:
        with pytest.raises(httpx.ReadTimeout):
            impatient.post("/write", content=b"draft-1")
    assert http_upstream.server.written.wait(WAIT_S)
    assert http_upstream.server.writes == [b"draft-1"]
    proxy.destroy_toxic("latency_downstream")
    with httpx.Client(base_url=f"http://{proxy.listen}", timeout=WAIT_S) as patient:
        assert patient.post("/write", content=b"draft-2").status_code == 201
    assert http_upstream.server.writes == [b"draft-1", b"draft-2"]


def test_a_toxic_added_to_a_live_connection_applies_and_its_removal_releases_what_it_held(
        client: Toxiproxy, tcp_upstream: MakeTcp) -> None:
    proxy = client.create(upstream=tcp_upstream(_echo).address, name="echo")
    with connect(proxy.listen) as sock:
        sock.sendall(b"one")
        assert recv_until(sock, b"one") == b"one"
        proxy.add_toxic(type="latency", attributes={"latency": 60_000})
        sock.sendall(b"two")
        assert _nothing_arrives(sock)
        proxy.destroy_toxic("latency_downstream")  # an interrupted latency passes its chunk on at once
        assert recv_until(sock, b"two") == b"two"


def test_reset_peer_mid_stream(client: Toxiproxy, http_upstream: HttpUpstream) -> None:
    proxy = client.create(upstream=http_upstream.address, name="sessions")
    with connect(proxy.listen) as sock:
        sock.sendall(STREAM_REQUEST)
        head = recv_until(sock, b"part-1\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 ") and head.endswith(b"7\r\npart-1\n\r\n")
        proxy.add_toxic(type="reset_peer", attributes={"timeout": 0})
        http_upstream.server.release.set()
        with pytest.raises(ConnectionResetError):
            recv_all(sock)


def test_reset_peer_upstream_before_delivery(client: Toxiproxy, http_upstream: HttpUpstream) -> None:
    proxy = client.create(upstream=http_upstream.address, name="wordpress")
    proxy.add_toxic(type="reset_peer", stream="upstream", attributes={"timeout": 100})
    with httpx.Client(base_url=f"http://{proxy.listen}", timeout=WAIT_S) as site:
        with pytest.raises(httpx.TransportError):
            site.post("/write", content=b"draft")
    assert http_upstream.server.writes == []


@pytest.mark.slow  # seconds of real time: `make test` runs it
def test_slow_close_holds_the_end_after_the_data(client: Toxiproxy, tcp_upstream: MakeTcp) -> None:
    closed = threading.Event()

    def answer_and_close(conn: socket.socket) -> None:
        conn.sendall(b"last words")
        conn.shutdown(socket.SHUT_RDWR)
        closed.set()

    proxy = client.create(upstream=tcp_upstream(answer_and_close).address, name="svc")
    proxy.add_toxic(type="slow_close", attributes={"delay": 3000})
    with connect(proxy.listen) as sock:
        assert recv_until(sock, b"last words") == b"last words"
        assert closed.wait(WAIT_S)
        assert _nothing_arrives(sock)  # the service has closed; the end is still held back
        assert recv_all(sock) == b""


def test_bandwidth_limits_the_rate(client: Toxiproxy, tcp_upstream: MakeTcp) -> None:
    """The one duration this file checks: 60 kB at 100 kB/s cannot arrive in much under 0.6 s."""
    payload = pattern(60_000)
    proxy = client.create(upstream=tcp_upstream(_send_then_close(payload)).address, name="svc")
    proxy.add_toxic(type="bandwidth", attributes={"rate": 100})
    with connect(proxy.listen) as sock:
        started = time.perf_counter()
        pieces = []
        while chunk := sock.recv(65536):
            pieces.append(chunk)
        elapsed_s = time.perf_counter() - started
    assert b"".join(pieces) == payload
    assert len(pieces) >= 3  # rate x 100 bytes every 100 ms, not one burst
    assert 0.45 <= elapsed_s < 30


def test_timeout_drops_the_data_and_closes_when_idle(client: Toxiproxy, tcp_upstream: MakeTcp) -> None:
    heard: list[bytes] = []

    def listen_then_answer(conn: socket.socket) -> None:
        heard.append(conn.recv(100))
        conn.sendall(b"answer")
        conn.recv(100)  # until the proxy closes

    upstream = tcp_upstream(listen_then_answer)
    proxy = client.create(upstream=upstream.address, name="svc")
    proxy.add_toxic(type="timeout", attributes={"timeout": 200})
    with connect(proxy.listen) as sock:
        sock.sendall(b"request")
        assert recv_all(sock) == b""  # the answer was dropped, then the connection closed
    assert heard == [b"request"]


def test_timeout_zero_holds_the_connection_until_it_is_removed(client: Toxiproxy, tcp_upstream: MakeTcp) -> None:
    proxy = client.create(upstream=tcp_upstream(_echo).address, name="svc")
    proxy.add_toxic(type="timeout", attributes={"timeout": 0})
    with connect(proxy.listen) as sock:
        sock.sendall(b"anyone?")
        assert _nothing_arrives(sock)
        proxy.destroy_toxic("timeout_downstream")  # removing it ends the connections it held
        assert recv_all(sock) == b""


@pytest.mark.parametrize("stream", ["downstream", "upstream"])
def test_limit_data_forwards_exactly_n_bytes_then_closes(client: Toxiproxy, tcp_upstream: MakeTcp,
                                                         stream: str) -> None:
    heard = bytearray()
    done = threading.Event()

    def read_all_then_answer(conn: socket.socket) -> None:
        try:
            while data := conn.recv(65536):
                heard.extend(data)
                if len(heard) >= 5000:
                    break
            conn.sendall(pattern(5000))
        finally:
            done.set()

    proxy = client.create(upstream=tcp_upstream(read_all_then_answer).address, name="svc")
    proxy.add_toxic(type="limit_data", stream=stream, attributes={"bytes": 1000})
    with connect(proxy.listen) as sock:
        sock.sendall(pattern(5000))
        try:
            received = recv_all(sock)
        except ConnectionResetError:  # the upstream case: closing with unread bytes is a reset
            received = b""
    assert done.wait(WAIT_S)
    if stream == "downstream":
        assert received == pattern(1000)
    else:
        assert bytes(heard) == pattern(1000) and received == b""


def test_slicer_cuts_the_stream_into_pieces_and_loses_nothing(client: Toxiproxy, tcp_upstream: MakeTcp) -> None:
    payload = pattern(2000)
    proxy = client.create(upstream=tcp_upstream(_send_then_close(payload)).address, name="svc")
    proxy.add_toxic(type="slicer", attributes={"average_size": 100, "size_variation": 20, "delay": 20_000})
    with connect(proxy.listen) as sock:
        pieces = []
        while chunk := sock.recv(65536):
            pieces.append(chunk)
    assert b"".join(pieces) == payload
    assert len(pieces) >= 2


def test_toxicity_zero_never_runs_the_toxic(client: Toxiproxy, http_upstream: HttpUpstream) -> None:
    proxy = client.create(upstream=http_upstream.address, name="svc")
    proxy.add_toxic(type="latency", toxicity=0, attributes={"latency": 60_000})
    with httpx.Client(base_url=f"http://{proxy.listen}", timeout=WAIT_S) as through:
        assert through.get("/hello").text == "hello"


def test_toxicity_is_drawn_per_connection_from_the_seed(client: Toxiproxy, tcp_upstream: MakeTcp) -> None:
    """limit_data 0 at toxicity 0.5: the connections it runs on close at once, the others echo."""

    def outcomes(proxy: Proxy) -> str:
        seen = ""
        for _ in range(12):
            with connect(proxy.listen) as sock:
                sock.sendall(b"ping")
                seen += "e" if recv_until(sock, b"ping") == b"ping" else "x"
        return seen

    upstream = tcp_upstream(_echo)
    first = client.create(upstream=upstream.address, name="first")
    first.add_toxic(type="limit_data", toxicity=0.5, attributes={"bytes": 0})
    drawn = outcomes(first)
    assert set(drawn) == {"e", "x"}
    first.destroy()
    again = client.create(upstream=upstream.address, name="first")  # same name, same seed: same draws
    again.add_toxic(type="limit_data", toxicity=0.5, attributes={"bytes": 0})
    assert outcomes(again) == drawn


def test_a_disabled_proxy_refuses_and_closes_then_comes_back(client: Toxiproxy, tcp_upstream: MakeTcp) -> None:
    proxy = client.create(upstream=tcp_upstream(_echo).address, name="svc")
    with connect(proxy.listen) as live:
        live.sendall(b"hi")
        assert recv_until(live, b"hi") == b"hi"
        proxy.disable()
        assert recv_all(live) == b""
    with pytest.raises(ConnectionRefusedError):
        connect(proxy.listen).close()
    proxy.enable()
    with connect(proxy.listen) as back:
        back.sendall(b"again")
        assert recv_until(back, b"again") == b"again"


def test_an_upstream_that_is_down_gives_the_client_the_end_of_the_stream(client: Toxiproxy) -> None:
    with socket.create_server(("127.0.0.1", 0)) as placeholder:
        dead = f"127.0.0.1:{placeholder.getsockname()[1]}"
    proxy = client.create(upstream=dead, name="svc")
    with connect(proxy.listen) as sock:
        assert recv_all(sock) == b""
