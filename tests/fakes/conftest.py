"""Fixtures of the fakes' conformance tests: worlds for the sessions fake (in-process through the
gate, or over real loopback HTTP served by uvicorn) and clients for the fake WordPress.

* ``loopback`` (session scope): one uvicorn server on 127.0.0.1 and a free port, in a background
  thread, serving every fake a test mounts on it under its own path prefix; stopped at teardown
  with bounded waits.
* ``openai_worlds`` (module scope): ``openai_worlds(*jobs, seed=7, transport="gate"|"loopback")``
  builds an ``OpenAIWorld``; its clients are closed and its fakes unmounted at teardown.
* ``transport``: ``gate`` and ``loopback``, for tests that must pass both ways.
* ``clock``, ``wordpress``, ``client`` (the editor) and ``anon`` (a visitor): the fake WordPress
  through the gate; ``wp_client(auth)`` builds more clients on the same fake.
"""

from __future__ import annotations

import itertools
import random
import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import httpx
import openai
import pytest
import uvicorn

from durable_harness.fakes import asgi_app
from durable_harness.wire import Request, Response
from durable_harness.fakes._asgi import Handler
from durable_harness.fakes.openai_agents import ArticleBrain, SessionsFake
from durable_harness.fakes.wordpress import WordPressFake
from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._gate import Gate
from durable_harness.harness._history import History
from durable_harness.harness.faults import RequestFault

OPENAI_KEY = "sk-test-openai"
GATE_ORIGIN = "http://openai.dh.test"
THINK_S = 1.5
BETA = {"OpenAI-Beta": "agents=v1"}
ARTICLE_TOOLS = ["wp_upload_media", "wp_create_draft", "wp_update_post", "wp_set_seo", "wp_get_post"]
TRANSPORTS = ["gate", "loopback"]
WP_AUTH = ("editor", "abcd EFGH ijkl MNOP qrst UVWX")
WP_ROOT = "http://wordpress.dh.test/wp-json"
_WAIT_S = 10.0


def article_job(job_id: str = "job-1", version: str = "1", **inputs: Any) -> dict[str, Any]:
    return {"job_id": job_id, "task_version": version, "workload": "article",
            "input": {"topic": "home composting", "title": "Home Composting 101", "focus_keyword": "compost",
                      **inputs}, "allowed_tools": list(ARTICLE_TOOLS)}


# -- serving fakes ------------------------------------------------------------------------------
class _Recorder:
    """A fake as the gate or the server sees it, plus every request it was handed."""

    def __init__(self, fake: SessionsFake, clock: VirtualClock) -> None:
        self.fake, self.clock = fake, clock
        self.name, self.host, self.root = fake.name, fake.host, fake.root
        self.seen: list[Request] = []

    def handle(self, request: Request) -> Response:
        self.clock.run_due()  # what the gate does before each request
        self.seen.append(request)
        return self.fake.handle(request)

    def mutations(self) -> int:
        return self.fake.mutations()

    def credential(self, request: Request) -> str | None:
        return self.fake.credential(request)


class _Mounts:
    """Dispatches ``/m<n>/...`` to the service mounted as ``m<n>``, with the prefix stripped."""

    def __init__(self) -> None:
        self.services: dict[str, Handler] = {}

    def handle(self, request: Request) -> Response:
        head, _, tail = request.path.lstrip("/").partition("/")
        service = self.services.get(head)
        if service is None:
            return Response(status=404, body=f"nothing is mounted at /{head}".encode())
        return service.handle(replace(request, path="/" + tail))


class Loopback:
    """uvicorn on 127.0.0.1 (a free port) in a daemon thread, serving ``asgi_app(self.mounts)``."""

    def __init__(self) -> None:
        self.mounts = _Mounts()
        self._numbers = itertools.count(1)
        # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only then (else every request waits ~40 ms).
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self.origin = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        config = uvicorn.Config(asgi_app(self.mounts), lifespan="off", ws="none", http="h11", log_config=None,
                                log_level="warning", access_log=False, timeout_graceful_shutdown=2)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]},
                                        name="loopback-uvicorn", daemon=True)

    def start(self) -> None:
        self._thread.start()
        started = threading.Event()
        for _ in range(int(_WAIT_S / 0.01)):
            if self._server.started or not self._thread.is_alive():
                break
            started.wait(0.01)
        if not self._server.started:
            self.stop()
            raise RuntimeError(f"uvicorn did not start on {self.origin} within {_WAIT_S} s")

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(_WAIT_S)
        if self._thread.is_alive():
            self._server.force_exit = True
            self._thread.join(_WAIT_S)
        self._socket.close()
        assert not self._thread.is_alive(), "the loopback server did not stop"

    def mount(self, service: Handler) -> str:
        """Serve ``service``; returns its origin (base URL without the fake's root)."""
        name = f"m{next(self._numbers)}"
        self.mounts.services[name] = service
        return f"{self.origin}/{name}"

    def unmount(self, origin: str) -> None:
        self.mounts.services.pop(origin.rsplit("/", 1)[1], None)


@pytest.fixture(scope="session")
def loopback() -> Iterator[Loopback]:
    server = Loopback()
    server.start()
    yield server
    server.stop()


# -- the sessions fake --------------------------------------------------------------------------
@dataclass
class OpenAIWorld:
    clock: VirtualClock
    fake: SessionsFake
    client: openai.OpenAI
    http: httpx.Client            # raw requests
    base: str                     # the SDK's base_url
    transport: str
    gate: Gate | None             # in-process only
    recorder: _Recorder
    _closers: list[Callable[[], None]] = field(default_factory=list)

    def raw(self, method: str, path: str, *, headers: dict[str, str] | None = None, **kwargs: Any) -> httpx.Response:
        merged = {"Authorization": f"Bearer {OPENAI_KEY}", **BETA, **(headers or {})}
        return self.http.request(method, self.base + path, headers=merged, **kwargs)

    def get(self, path: str, **params: Any) -> httpx.Response:
        return self.raw("GET", path, params=params)

    def post_events(self, session_id: str, events: list[dict[str, Any]], key: str | None = None) -> httpx.Response:
        headers = {"Idempotency-Key": key} if key is not None else {}
        return self.raw("POST", f"/agents/sessions/{session_id}/events", json={"events": events}, headers=headers)

    def requests_to(self, route_end: str) -> int:
        return sum(1 for request in self.recorder.seen if request.path.endswith(route_end))

    def other_client(self, api_key: str, process: str = "other") -> openai.OpenAI:
        """Another SDK client on the same transport (closed with the world)."""
        if self.gate is not None:
            client = openai.OpenAI(api_key=api_key, base_url=self.base, max_retries=0,
                                   http_client=httpx.Client(transport=self.gate.transport(process)))
        else:
            client = openai.OpenAI(api_key=api_key, base_url=self.base, max_retries=0, timeout=_WAIT_S)
        self._closers.append(client.close)
        return client


class OpenAIWorlds:
    def __init__(self, loopback: Callable[[], Loopback]) -> None:
        self._loopback = loopback
        self._worlds: list[OpenAIWorld] = []

    def __call__(self, *jobs: dict[str, Any], seed: int = 7, transport: str = "gate", think_s: float = THINK_S,
                 clock: VirtualClock | None = None, faults: Sequence[RequestFault] = (),
                 **fake_kwargs: Any) -> OpenAIWorld:
        """A world of one fresh fake; ``jobs`` default to one ``article_job()``; ``faults`` need the gate."""
        if transport not in TRANSPORTS:
            raise ValueError(f"transport={transport!r} must be one of {TRANSPORTS!r}")
        if faults and transport != "gate":
            raise ValueError("faults fire at the gate: use transport='gate' with faults")
        clock = clock if clock is not None else VirtualClock()
        table = {(j["job_id"], str(j["task_version"])): j for j in (jobs or (article_job(),))}
        fake = SessionsFake(clock, random.Random(seed), api_key=OPENAI_KEY, think_s=think_s,
                            brains=ArticleBrain.factory(table, seed=seed), **fake_kwargs)
        recorder = _Recorder(fake, clock)
        if transport == "gate":
            gate = Gate(clock, History(), [recorder], faults)
            base = GATE_ORIGIN + fake.root
            http = httpx.Client(transport=gate.transport("raw"))
            client = openai.OpenAI(api_key=OPENAI_KEY, base_url=base, max_retries=0,
                                   http_client=httpx.Client(transport=gate.transport("test")))
            world = OpenAIWorld(clock, fake, client, http, base, transport, gate, recorder)
        else:
            server = self._loopback()
            origin = server.mount(recorder)
            base = origin + fake.root
            # The SDK's own default http client (httpx2) on a real socket; bounded waits, so nothing hangs.
            client = openai.OpenAI(api_key=OPENAI_KEY, base_url=base, max_retries=0, timeout=_WAIT_S)
            world = OpenAIWorld(clock, fake, client, httpx.Client(timeout=_WAIT_S), base, transport, None, recorder)
            world._closers.append(lambda: server.unmount(origin))
        world._closers += [client.close, world.http.close]
        self._worlds.append(world)
        return world

    def close(self) -> None:
        for world in self._worlds:
            for close in world._closers:
                close()
        self._worlds.clear()


@pytest.fixture(scope="module")
def openai_worlds(request: pytest.FixtureRequest) -> Iterator[OpenAIWorlds]:
    """A factory of sessions-fake worlds; the loopback server starts only if a world needs it."""
    worlds = OpenAIWorlds(lambda: request.getfixturevalue("loopback"))
    yield worlds
    worlds.close()


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# -- the fake WordPress -------------------------------------------------------------------------
@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
def wordpress(clock: VirtualClock) -> WordPressFake:
    return WordPressFake(clock)


@pytest.fixture
def wp_client(clock: VirtualClock, wordpress: WordPressFake) -> Iterator[Callable[..., httpx.Client]]:
    """``wp_client(auth=WP_AUTH, process="test")``: a client of the WordPress fake through a gate."""
    made: list[httpx.Client] = []

    def make(auth: tuple[str, str] | None = WP_AUTH, process: str = "test") -> httpx.Client:
        transport = Gate(clock, History(), [wordpress]).transport(process)
        made.append(httpx.Client(base_url=WP_ROOT, transport=transport, auth=auth))
        return made[-1]

    yield make
    for c in made:
        c.close()


@pytest.fixture
def client(wp_client: Callable[..., httpx.Client]) -> httpx.Client:
    """The WordPress editor (application password) through the gate."""
    return wp_client()


@pytest.fixture
def anon(wp_client: Callable[..., httpx.Client]) -> httpx.Client:
    """A WordPress visitor without credentials through the gate."""
    return wp_client(None, "anon")
