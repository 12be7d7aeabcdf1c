"""Conformance: the ``toxiproxy-python`` client (0.1.1, the API 2.x client teams use) drives the
embedded server unchanged, and what it puts on the wire gets Toxiproxy 2.x's answers."""

from __future__ import annotations

import socket

import httpx
import pytest
from toxiproxy import Toxiproxy
from toxiproxy.exceptions import InvalidToxic, NotFound, ProxyExists

from _toxiproxy_world import HttpUpstream, connect
from durable_harness.fakes.toxiproxy import VERSION


def test_version_and_running(client: Toxiproxy) -> None:
    assert client.running() is True
    assert client.version() == f'{{"version": "{VERSION}"}}\n'.encode()


def test_create_list_get_and_destroy(client: Toxiproxy, api: httpx.Client, http_upstream: HttpUpstream) -> None:
    proxy = client.create(upstream=http_upstream.address, name="wordpress")
    host, port = proxy.listen.rsplit(":", 1)
    assert (host, proxy.enabled, proxy.upstream) == ("127.0.0.1", True, http_upstream.address)
    assert int(port) > 0  # the client asks for 127.0.0.1:0; the server reports the port it bound
    assert set(client.proxies()) == {"wordpress"}
    assert client.get_proxy("wordpress").listen == proxy.listen
    assert client.get_proxy("absent") is None
    listed = api.get("/proxies")
    assert listed.status_code == 200 and listed.headers["content-type"] == "application/json"
    assert listed.json() == {"wordpress": {"name": "wordpress", "listen": proxy.listen,
                                           "upstream": http_upstream.address, "enabled": True, "toxics": []}}
    assert list(listed.json()["wordpress"]) == ["name", "listen", "upstream", "enabled", "toxics"]
    with httpx.Client(base_url=f"http://{proxy.listen}", timeout=10) as through:
        assert through.get("/hello").text == "hello"
    assert client.destroy(proxy) is True
    assert client.proxies() == {}
    with pytest.raises(ConnectionRefusedError):
        connect(proxy.listen).close()


def test_create_twice_is_refused_by_the_client_and_by_the_server(client: Toxiproxy, api: httpx.Client) -> None:
    client.create(upstream="127.0.0.1:9", name="twice")
    with pytest.raises(ProxyExists):
        client.create(upstream="127.0.0.1:9", name="twice")
    again = api.post("/proxies", json={"name": "twice", "upstream": "127.0.0.1:9"})
    assert (again.status_code, again.text) == (409, '{"error":"proxy already exists","status":409}\n')
    assert again.headers["content-type"] == "text/plain; charset=utf-8"


def test_a_busy_port_is_a_500_with_the_bind_error(client: Toxiproxy, api: httpx.Client) -> None:
    with socket.create_server(("127.0.0.1", 0)) as holder:
        busy = f"127.0.0.1:{holder.getsockname()[1]}"
        answer = api.post("/proxies", json={"name": "busy", "upstream": "127.0.0.1:9", "listen": busy})
        assert answer.status_code == 500
        assert answer.json() == {"error": f"listen tcp {busy}: bind: address already in use", "status": 500}
        # The client reads the error body as a proxy: Toxiproxy's 500 reaches its caller as KeyError('name').
        with pytest.raises(KeyError, match="name"):
            client.create(upstream="127.0.0.1:9", name="busy", listen=busy)
    assert client.proxies() == {}


def test_listen_is_reported_bound_when_running_and_as_given_when_disabled(client: Toxiproxy) -> None:
    running = client.create(upstream="127.0.0.1:9", name="running", listen="localhost:0")
    assert running.listen.startswith("127.0.0.1:") and not running.listen.endswith(":0")
    down = client.create(upstream="127.0.0.1:9", name="down", listen="localhost:0", enabled=False)
    assert (down.listen, down.enabled) == ("localhost:0", False)


def test_disable_and_enable_keep_the_port(client: Toxiproxy, http_upstream: HttpUpstream) -> None:
    proxy = client.create(upstream=http_upstream.address, name="svc")
    with proxy.down():
        assert client.get_proxy("svc").enabled is False
        with pytest.raises(ConnectionRefusedError):
            connect(proxy.listen).close()
    assert client.get_proxy("svc").enabled is True
    assert client.get_proxy("svc").listen == proxy.listen
    with httpx.Client(base_url=f"http://{proxy.listen}", timeout=10) as through:
        assert through.get("/hello").text == "hello"


def test_update_by_patch_and_post(client: Toxiproxy, api: httpx.Client, http_upstream: HttpUpstream) -> None:
    proxy = client.create(upstream="127.0.0.1:9", name="svc")
    patched = api.patch("/proxies/svc", json={"upstream": http_upstream.address})
    assert patched.status_code == 200
    assert patched.json() == {"name": "svc", "listen": proxy.listen, "upstream": http_upstream.address,
                              "enabled": True, "toxics": []}
    posted = api.post("/proxies/svc", json={"enabled": False})  # the deprecated form the client uses
    assert (posted.status_code, posted.json()["enabled"], posted.json()["upstream"]) == (
        200, False, http_upstream.address)
    assert api.patch("/proxies/absent", json={}).json() == {"error": "proxy not found", "status": 404}


def test_toxics_add_list_get_update_remove(client: Toxiproxy, api: httpx.Client) -> None:
    proxy = client.create(upstream="127.0.0.1:9", name="svc")
    assert proxy.add_toxic(type="latency", attributes={"latency": 1000, "jitter": 10}) is None  # as 0.1.1 does
    proxy.add_toxic(type="bandwidth", stream="upstream", name="thin", toxicity=0.5, attributes={"rate": 10})
    assert set(proxy.toxics()) == {"latency_downstream", "thin"}
    thin = proxy.get_toxic("thin")
    assert (thin.type, thin.stream, thin.toxicity, thin.attributes) == ("bandwidth", "upstream", 0.5, {"rate": 10})
    # Upstream toxics are listed before downstream ones, each in the order added.
    assert api.get("/proxies/svc/toxics").json() == [
        {"attributes": {"rate": 10}, "name": "thin", "type": "bandwidth", "stream": "upstream", "toxicity": 0.5},
        {"attributes": {"latency": 1000, "jitter": 10}, "name": "latency_downstream", "type": "latency",
         "stream": "downstream", "toxicity": 1},
    ]
    shown = api.get("/proxies/svc/toxics/latency_downstream")
    assert shown.status_code == 200 and shown.json()["attributes"] == {"latency": 1000, "jitter": 10}
    updated = api.patch("/proxies/svc/toxics/latency_downstream", json={"attributes": {"jitter": 0}})
    assert updated.json() == {"attributes": {"latency": 1000, "jitter": 0}, "name": "latency_downstream",
                              "type": "latency", "stream": "downstream", "toxicity": 1}
    posted = api.post("/proxies/svc/toxics/thin", json={"toxicity": 1})
    assert posted.json()["toxicity"] == 1 and posted.json()["attributes"] == {"rate": 10}
    assert client.get_proxy("svc").toxics()["thin"].toxicity == 1
    assert proxy.destroy_toxic("thin") is True
    assert set(proxy.toxics()) == {"latency_downstream"}
    assert api.get("/proxies").json()["svc"]["toxics"][0]["name"] == "latency_downstream"


@pytest.mark.parametrize("kind, attributes", [
    ("latency", {"latency": 0, "jitter": 0}), ("bandwidth", {"rate": 0}), ("slow_close", {"delay": 0}),
    ("timeout", {"timeout": 0}), ("reset_peer", {"timeout": 0}), ("limit_data", {"bytes": 0}),
    ("noop", {}),
])
def test_every_toxic_type_is_known_with_its_attributes(client: Toxiproxy, kind: str,
                                                       attributes: dict[str, int]) -> None:
    proxy = client.create(upstream="127.0.0.1:9", name="svc")
    proxy.add_toxic(type=kind, attributes={"unknown": 5})  # unknown attributes are ignored
    assert proxy.get_toxic(f"{kind}_downstream").attributes == attributes


def test_toxic_errors(client: Toxiproxy, api: httpx.Client) -> None:
    proxy = client.create(upstream="127.0.0.1:9", name="svc")
    proxy.add_toxic(type="latency", name="slow")
    with pytest.raises(InvalidToxic, match="stream was invalid"):
        proxy.add_toxic(type="latency", stream="sideways")
    with pytest.raises(InvalidToxic, match="invalid toxic type"):
        proxy.add_toxic(type="earthquake")
    with pytest.raises(ProxyExists, match="toxic already exists"):
        proxy.add_toxic(type="bandwidth", stream="upstream", name="slow")  # names are unique across streams
    # Toxiproxy checks the stream before the type, and both before the name.
    both = api.post("/proxies/svc/toxics", json={"type": "earthquake", "stream": "sideways", "name": "slow"})
    assert both.json() == {"error": "stream was invalid, can be either upstream or downstream", "status": 400}
    typed = api.post("/proxies/svc/toxics", json={"type": "earthquake", "name": "slow"})
    assert typed.json() == {"error": "invalid toxic type", "status": 400}
    assert api.get("/proxies/svc/toxics/absent").json() == {"error": "toxic not found", "status": 404}
    assert api.patch("/proxies/svc/toxics/absent", json={}).json() == {"error": "toxic not found", "status": 404}
    with pytest.raises(NotFound, match="toxic not found"):
        proxy.destroy_toxic("absent")
    assert proxy.destroy() is True
    with pytest.raises(NotFound, match="proxy not found"):
        proxy.destroy()
    wrong = api.post("/proxies/absent/toxics", json={"type": "latency"})
    assert wrong.json() == {"error": "proxy not found", "status": 404}


def test_reset_enables_every_proxy_and_removes_every_toxic(client: Toxiproxy, api: httpx.Client) -> None:
    first = client.create(upstream="127.0.0.1:9", name="first")
    first.add_toxic(type="latency", attributes={"latency": 100})
    second = client.create(upstream="127.0.0.1:9", name="second")
    second.disable()
    assert client.reset() is True
    assert {name: (p.enabled, p.toxics()) for name, p in client.proxies().items()} == {
        "first": (True, {}), "second": (True, {})}
    answer = api.post("/reset")
    assert (answer.status_code, answer.content) == (204, b"")


def test_the_clients_populate_creates_and_keeps(client: Toxiproxy, http_upstream: HttpUpstream) -> None:
    made = client.populate([{"name": "a", "upstream": http_upstream.address, "listen": "127.0.0.1:0"},
                            {"name": "b", "upstream": http_upstream.address, "listen": "127.0.0.1:0"}])
    assert sorted(p.name for p in made) == ["a", "b"]
    kept = client.get_proxy("a")
    # Given the bound address, the client finds the proxy unchanged and leaves it alone.
    assert client.populate([{"name": "a", "upstream": http_upstream.address, "listen": kept.listen}]) == []
    assert client.get_proxy("a").listen == kept.listen
