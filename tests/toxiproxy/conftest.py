"""Fixtures for the embedded Toxiproxy server's tests.

* ``toxiproxy_server``: a ``ToxiproxyThread`` on a free loopback port, seeded, stopped at teardown.
* ``client``: ``toxiproxy.Toxiproxy()`` pointed at it. The client keeps its server address in
  process-global class attributes; they are put back after each test.
* ``api``: an ``httpx.Client`` on the server's URL, for asserting the wire itself.
* ``http_upstream``, ``tcp_upstream(handler)``: real services on loopback to proxy to.
"""

from __future__ import annotations

import random
import socket
from collections.abc import Callable, Iterator

import httpx
import pytest
from toxiproxy import Toxiproxy
from toxiproxy.api import APIConsumer

from _toxiproxy_world import HttpUpstream, TcpUpstream
from durable_harness.fakes.toxiproxy import ToxiproxyThread

SEED = 20240917


@pytest.fixture
def toxiproxy_server() -> Iterator[ToxiproxyThread]:
    with ToxiproxyThread(rng=random.Random(SEED)) as server:
        yield server


@pytest.fixture
def client(toxiproxy_server: ToxiproxyThread) -> Iterator[Toxiproxy]:
    saved = (APIConsumer.host, APIConsumer.port)
    proxy_server = Toxiproxy()
    proxy_server.update_api_consumer("127.0.0.1", toxiproxy_server.port)
    try:
        yield proxy_server
    finally:
        APIConsumer.host, APIConsumer.port = saved


@pytest.fixture
def api(toxiproxy_server: ToxiproxyThread) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=toxiproxy_server.url, timeout=10) as http:
        yield http


@pytest.fixture
def http_upstream() -> Iterator[HttpUpstream]:
    upstream = HttpUpstream()
    try:
        yield upstream
    finally:
        upstream.close()


@pytest.fixture
def tcp_upstream() -> Iterator[Callable[[Callable[[socket.socket], None]], TcpUpstream]]:
    made: list[TcpUpstream] = []

    def make(handler: Callable[[socket.socket], None]) -> TcpUpstream:
        made.append(TcpUpstream(handler))
        return made[-1]

    try:
        yield make
    finally:
        for upstream in made:
            upstream.close()
