"""The network between a candidate process and the services: a Toxiproxy proxy in front of each.

When a scenario has a ``toxic`` fault, the world puts one proxy in front of each service's
loopback server (``front``, through ``_serving``) and gives the candidate the proxies' addresses;
the fault's effect (``apply``) adds a toxic to a service's proxy, or takes the proxy down (``type:
down``: ``enabled: false``, its connections dropped and new ones refused), for ``for_s`` scenario
seconds or to the end of the run. The proxies are the embedded Toxiproxy-compatible server's
(``durable_harness.fakes.toxiproxy``, seeded from the run), or a real Toxiproxy's at a URL
(``--toxiproxy URL``, or ``DURABLE_HARNESS_TOXIPROXY``); either is driven through the
``toxiproxy-python`` client, as a team's own tests would drive it.

Time: the attributes of a toxic that are times (``latency``, ``jitter``, ``timeout``, ``delay``
in ms, a slicer's ``delay`` in µs) are scenario time, as every time of a scenario is; they are
divided by the run's time scale before they reach the proxy, so a latency beyond the candidate's
client timeout stays beyond it (the candidate scales its own timeouts). ``rate`` and ``bytes`` are
not times and pass unchanged.

What it deliberately does not do: judge anything, or decide when a toxic applies (the fault does).
A proxy, a real one above all, is outside the world's determinism: the bytes a toxic lets through
depend on real time, so a run with a toxic replays its plan, not byte for byte its history.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import os
import random
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar
from urllib.parse import urlsplit

from durable_harness.harness._errors import HarnessError

__all__ = ["DOWN", "Network", "TOXIPROXY_ENV", "TIME_ATTRIBUTES", "toxiproxy_url"]

TOXIPROXY_ENV = "DURABLE_HARNESS_TOXIPROXY"
DOWN = "down"  # not a toxic: the proxy disabled
TIME_ATTRIBUTES = frozenset({"latency", "jitter", "timeout", "delay"})  # divided by the time scale (ms, or a slicer's µs)
API_TIMEOUT_S = 10.0  # real seconds for one call of the Toxiproxy API
T = TypeVar("T")


def toxiproxy_url(environ: Mapping[str, str]) -> str | None:
    """A real Toxiproxy server's API URL when one is asked for (``DURABLE_HARNESS_TOXIPROXY``)."""
    raw = (environ.get(TOXIPROXY_ENV) or "").strip()
    if not raw:
        return None
    parts = urlsplit(raw if "://" in raw else f"http://{raw}")
    if parts.scheme != "http" or not parts.hostname or parts.port is None or parts.path not in ("", "/"):
        raise HarnessError(f"{TOXIPROXY_ENV}={raw!r} is not a Toxiproxy API address such as http://127.0.0.1:8474")
    return f"http://{parts.hostname}:{parts.port}"


class Network:
    def __init__(self, *, rng: random.Random, scale: float, url: str | None = None, run_tag: str = "") -> None:
        self._rng = rng
        self._scale = scale
        self._url = url
        self._tag = run_tag or f"{os.getpid()}"
        self._embedded: Any = None
        self._host, self._port = "127.0.0.1", 0
        self._proxies: dict[str, Any] = {}  # service name -> toxiproxy.proxy.Proxy
        self._toxics: dict[str, tuple[str, str]] = {}  # toxic name -> (service, type)
        self._count = 0
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="dh-toxiproxy")

    @property
    def server(self) -> str:
        """Which Toxiproxy serves the proxies: ``embedded`` or the real one's URL."""
        return self._url or "embedded"

    # -- lifecycle -------------------------------------------------------------------------
    def front(self, bases: Mapping[str, str]) -> dict[str, str]:
        """A proxy in front of each service (``{service name: "http://127.0.0.1:PORT"}``); the proxies' bases."""
        if self._url is None:
            from durable_harness.fakes.toxiproxy import ToxiproxyError, ToxiproxyThread

            self._embedded = ToxiproxyThread(rng=self._rng)
            try:
                self._embedded.start()
            except ToxiproxyError as err:
                raise HarnessError(f"the embedded Toxiproxy server did not start: {err}") from None
            self._port = int(self._embedded.port)
        else:
            parts = urlsplit(self._url)
            self._host, self._port = str(parts.hostname), int(parts.port or 8474)
        out = {}
        for service, base in bases.items():
            upstream = urlsplit(base).netloc
            name = f"durable-harness-{self._tag}-{service}"
            proxy = self._call(f"create a proxy for {service}", functools.partial(_create, upstream=upstream, name=name))
            self._proxies[service] = proxy
            out[service] = f"http://{proxy.listen}"
        return out

    def close(self) -> None:
        """Destroy the proxies (a real server keeps nothing of the run) and stop the embedded server."""
        try:
            for service, proxy in list(self._proxies.items()):
                with contextlib.suppress(HarnessError):
                    self._call(f"destroy the proxy of {service}", functools.partial(_destroy, proxy))
            self._proxies.clear()
        finally:
            if self._embedded is not None:
                self._embedded.stop()
                self._embedded = None
            self._pool.shutdown(wait=False, cancel_futures=True)

    # -- the fault's effect ----------------------------------------------------------------
    def apply(self, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """Add a toxic (or take the proxy down) as a ``toxic`` fault asks; its evidence, or None
        when the service has no proxy (nothing to act on)."""
        service = str(params["service"])
        proxy = self._proxies.get(service)
        if proxy is None:
            return None
        kind = str(params["type"])
        if kind == DOWN:
            name = f"{DOWN}-{service}"
            if name in self._toxics:
                return None  # down already: nothing more to act on
            self._call(f"take the proxy of {service} down", lambda c: proxy.disable())
            self._toxics[name] = (service, DOWN)
            return {"service": service, "type": DOWN, "server": self.server}
        self._count += 1
        name = f"dh-{self._count}-{kind}"
        stream = str(params.get("stream") or "downstream")
        toxicity = float(params.get("toxicity", 1.0))
        attributes = self.scaled(kind, params.get("attributes") or {})
        self._call(f"add a {kind} toxic to {service}", lambda c: proxy.add_toxic(
            name=name, type=kind, stream=stream, toxicity=toxicity, attributes=attributes))
        self._toxics[name] = (service, kind)
        return {"service": service, "type": kind, "stream": stream, "toxicity": toxicity,
                "attributes": dict(params.get("attributes") or {}), "server": self.server, "toxic": name}

    def remover(self, evidence: Mapping[str, Any]) -> Callable[[], None]:
        """What ends the effect ``apply`` recorded as ``evidence`` (a toxic removed, a proxy up again)."""
        name = str(evidence.get("toxic") or f"{DOWN}-{evidence['service']}")
        return lambda: self.remove(name)

    def remove(self, name: str) -> None:
        """End one effect, if it is still on."""
        active = self._toxics.pop(name, None)
        if active is None:
            return
        service, kind = active
        proxy = self._proxies[service]
        if kind == DOWN:
            self._call(f"bring the proxy of {service} up", lambda c: proxy.enable())
        else:
            self._call(f"remove the {kind} toxic of {service}", lambda c: proxy.destroy_toxic(name))

    def heal(self) -> None:
        """End every effect still on: the world heals."""
        for name in list(self._toxics):
            self.remove(name)

    def scaled(self, kind: str, attributes: Mapping[str, Any]) -> dict[str, int]:
        """The toxic's attributes as the proxy takes them: times in scenario units divided by the scale."""
        out = {}
        for key, value in attributes.items():
            if key in TIME_ATTRIBUTES:
                out[str(key)] = int(round(float(value) / self._scale))
            else:
                out[str(key)] = int(value)
        return out

    # -- the client ------------------------------------------------------------------------
    def _call(self, what: str, fn: Callable[[Any], T]) -> T:
        """One use of the ``toxiproxy-python`` client, bounded (the client itself waits forever)."""
        def call() -> T:
            with _api_at(self._host, self._port) as client:
                return fn(client)
        future = self._pool.submit(call)
        try:
            return future.result(timeout=API_TIMEOUT_S)
        except concurrent.futures.TimeoutError:
            raise HarnessError(f"Toxiproxy at {self._host}:{self._port} did not answer within {API_TIMEOUT_S:g} s "
                               f"(to {what})") from None
        except HarnessError:
            raise
        except Exception as err:  # the client's errors (refused, 4xx/5xx) are the harness's: it set the proxies up
            raise HarnessError(f"Toxiproxy at {self._host}:{self._port} could not {what}: "
                               f"{type(err).__name__}: {err}") from None


def _create(client: Any, *, upstream: str, name: str) -> Any:
    return client.create(upstream=upstream, name=name, listen="127.0.0.1:0", enabled=True)


def _destroy(proxy: Any, client: Any) -> bool:
    return bool(proxy.destroy())


@contextlib.contextmanager
def _api_at(host: str, port: int) -> Iterator[Any]:
    """``toxiproxy.Toxiproxy`` pointed at ``host:port``; the client keeps its server in class
    attributes, which are put back afterwards."""
    from toxiproxy import Toxiproxy
    from toxiproxy.api import APIConsumer

    saved = (APIConsumer.host, APIConsumer.port)
    client = Toxiproxy()
    client.update_api_consumer(host, port)
    try:
        yield client
    finally:
        APIConsumer.host, APIConsumer.port = saved
