"""Conformance: the embedded server's HTTP API on the wire — statuses, bodies, content types and the
exact error strings of Toxiproxy 2.x — for what ``toxiproxy-python`` never sends (populate, PATCH,
single-toxic reads, bad bodies) and for every route's errors."""

from __future__ import annotations

import socket

import httpx
import pytest

from _toxiproxy_world import HttpUpstream, connect
from durable_harness.fakes.toxiproxy import VERSION

TEXT = "text/plain; charset=utf-8"


def _error(answer: httpx.Response, status: int, message: str) -> None:
    assert answer.status_code == status
    assert answer.text == f'{{"error":"{message}","status":{status}}}\n'
    assert answer.headers["content-type"] == TEXT


def test_version_shape(api: httpx.Client) -> None:
    answer = api.get("/version")
    assert answer.status_code == 200 and answer.text == f'{{"version": "{VERSION}"}}\n'
    assert answer.headers["content-type"] == "application/json;charset=utf-8"


def test_every_response_carries_a_distinct_request_id(api: httpx.Client) -> None:
    answers = [api.get("/version"), api.get("/proxies"), api.get("/nowhere"), api.delete("/version"),
               api.get("/proxies/absent"), api.post("/reset")]
    ids = [a.headers["x-toxiproxy-request-id"] for a in answers]
    assert len(set(ids)) == len(ids) and all(ids)


def test_unknown_paths_wrong_methods_and_browsers(api: httpx.Client) -> None:
    missing = api.get("/nowhere")
    assert (missing.status_code, missing.text, missing.headers["content-type"]) == (404, "404 page not found\n", TEXT)
    assert api.get("/proxies/").status_code == 404  # no trailing-slash redirect, as Toxiproxy's router
    wrong = api.put("/proxies")
    assert (wrong.status_code, wrong.content) == (405, b"")
    assert api.delete("/reset").status_code == 405
    browser = api.get("/proxies", headers={"User-Agent": "Mozilla/5.0 (X11; Linux x86_64)"})
    assert (browser.status_code, browser.text) == (403, "User agent not allowed\n")
    assert api.get("/metrics").status_code == 404  # served only with metrics flags


def test_create_shapes_and_errors(api: httpx.Client, http_upstream: HttpUpstream) -> None:
    created = api.post("/proxies", json={"name": "svc", "upstream": http_upstream.address})
    assert created.status_code == 201 and created.headers["content-type"] == "application/json"
    body = created.json()
    assert body["listen"].startswith("127.0.0.1:") and body["enabled"] is True and body["toxics"] == []
    _error(api.post("/proxies", json={"upstream": "127.0.0.1:9"}), 400, "missing required field: name")
    _error(api.post("/proxies", json={"name": "x"}), 400, "missing required field: upstream")
    _error(api.post("/proxies", json={"name": "", "upstream": ""}), 400, "missing required field: name")
    _error(api.post("/proxies", content=b""), 400, "bad request body: EOF")
    assert api.post("/proxies", content=b"{nope").json()["error"].startswith("bad request body: ")
    assert api.post("/proxies", json=["svc"]).json() == {
        "error": "bad request body: json: cannot unmarshal array into Go value of type toxiproxy.Proxy",
        "status": 400}
    assert api.post("/proxies", json={"name": 7, "upstream": "x:1"}).json()["error"] == (
        "bad request body: json: cannot unmarshal number into Go struct field Proxy.name of type string")
    _error(api.get("/proxies/absent"), 404, "proxy not found")
    _error(api.delete("/proxies/absent"), 404, "proxy not found")
    deleted = api.delete("/proxies/svc")
    assert (deleted.status_code, deleted.content) == (204, b"")


def test_a_listen_address_off_loopback_is_refused(api: httpx.Client) -> None:
    answer = api.post("/proxies", json={"name": "open", "upstream": "127.0.0.1:9", "listen": "0.0.0.0:0"})
    assert answer.status_code == 400 and "not on loopback" in answer.json()["error"]
    assert api.get("/proxies").json() == {}
    bad = api.post("/proxies", json={"name": "bad", "upstream": "127.0.0.1:9", "listen": "127.0.0.1"})
    assert bad.json() == {"error": "listen tcp: address 127.0.0.1: missing port in address", "status": 500}


def test_a_listen_change_restarts_the_proxy(api: httpx.Client, http_upstream: HttpUpstream) -> None:
    first = api.post("/proxies", json={"name": "svc", "upstream": http_upstream.address}).json()["listen"]
    moved = api.patch("/proxies/svc", json={"listen": "127.0.0.1:0"}).json()["listen"]
    assert moved != first
    with pytest.raises(ConnectionRefusedError):
        connect(first).close()
    with httpx.Client(base_url=f"http://{moved}", timeout=10) as through:
        assert through.get("/hello").text == "hello"


def test_toxic_defaults_and_updates(api: httpx.Client) -> None:
    api.post("/proxies", json={"name": "svc", "upstream": "127.0.0.1:9"})
    added = api.post("/proxies/svc/toxics", json={"type": "slicer", "attributes": {"average_size": 64}})
    assert added.status_code == 200  # not 201, as Toxiproxy answers
    assert added.json() == {"attributes": {"average_size": 64, "size_variation": 0, "delay": 0},
                            "name": "slicer_downstream", "type": "slicer", "stream": "downstream", "toxicity": 1}
    upstream = api.post("/proxies/svc/toxics", json={"type": "noop", "stream": "upstream", "toxicity": 0.25})
    assert upstream.json() == {"attributes": {}, "name": "noop_upstream", "type": "noop", "stream": "upstream",
                               "toxicity": 0.25}
    merged = api.patch("/proxies/svc/toxics/slicer_downstream",
                       json={"attributes": {"delay": 10}, "name": "renamed", "stream": "upstream"})
    assert merged.json() == {"attributes": {"average_size": 64, "size_variation": 0, "delay": 10},
                             "name": "slicer_downstream", "type": "slicer", "stream": "downstream", "toxicity": 1}
    removed = api.delete("/proxies/svc/toxics/noop_upstream")
    assert (removed.status_code, removed.content) == (204, b"")
    _error(api.delete("/proxies/svc/toxics/noop_upstream"), 404, "toxic not found")


def test_toxic_bodies_that_cannot_be_decoded(api: httpx.Client) -> None:
    api.post("/proxies", json={"name": "svc", "upstream": "127.0.0.1:9"})
    _error(api.post("/proxies/svc/toxics", json={}), 400, "invalid toxic type")
    _error(api.post("/proxies/svc/toxics", content=b""), 400, "bad request body: EOF")
    typed = api.post("/proxies/svc/toxics", json={"type": "latency", "attributes": {"latency": "1s"}})
    assert typed.json() == {"error": "bad request body: json: cannot unmarshal string into Go struct field "
                                     "LatencyToxic.attributes.latency of type int64", "status": 400}
    fraction = api.post("/proxies/svc/toxics", json={"type": "latency", "attributes": {"latency": 1.5}})
    assert fraction.json()["error"] == ("bad request body: json: cannot unmarshal number 1.5 into Go struct "
                                        "field LatencyToxic.attributes.latency of type int64")
    endless = api.post("/proxies/svc/toxics", json={"type": "slicer", "attributes": {"average_size": 0}})
    assert endless.status_code == 400 and "average_size must be above 0" in endless.json()["error"]
    assert api.get("/proxies/svc/toxics").json() == []


def test_populate_creates_keeps_replaces(api: httpx.Client, http_upstream: HttpUpstream) -> None:
    made = api.post("/populate", json=[{"name": "a", "upstream": http_upstream.address},
                                       {"name": "b", "upstream": "127.0.0.1:9", "enabled": False}])
    assert made.status_code == 201 and made.headers["content-type"] == "application/json"
    proxies = {p["name"]: p for p in made.json()["proxies"]}
    assert (proxies["a"]["enabled"], proxies["b"]["enabled"]) == (True, False)
    listen_a = proxies["a"]["listen"]
    api.post("/proxies/a/toxics", json={"type": "latency"})
    # Same listen (resolved: localhost is 127.0.0.1) and upstream: kept, with its toxics.
    same = api.post("/populate", json=[{"name": "a", "upstream": http_upstream.address,
                                        "listen": listen_a.replace("127.0.0.1", "localhost")}])
    assert [p["toxics"] for p in same.json()["proxies"]] == [[{
        "attributes": {"latency": 0, "jitter": 0}, "name": "latency_downstream", "type": "latency",
        "stream": "downstream", "toxicity": 1}]]
    # Another upstream: replaced, and its toxics are gone.
    other = api.post("/populate", json=[{"name": "a", "upstream": "127.0.0.1:9", "listen": listen_a}])
    assert other.json()["proxies"][0]["toxics"] == [] and other.json()["proxies"][0]["listen"] == listen_a
    assert sorted(api.get("/proxies").json()) == ["a", "b"]  # populate leaves other proxies be
    assert api.post("/populate", json=[]).json() == {"proxies": None}


def test_populate_checks_every_entry_before_it_creates_any(api: httpx.Client) -> None:
    answer = api.post("/populate", json=[{"name": "ok", "upstream": "127.0.0.1:9"}, {"upstream": "127.0.0.1:9"}])
    _error(answer, 400, "missing required field: name at proxy 2")
    answer = api.post("/populate", json=[{"name": "ok", "upstream": "127.0.0.1:9"}, {"name": "up"}])
    _error(answer, 400, "missing required field: upstream at proxy 2")
    _error(api.post("/populate", json={"name": "ok"}), 400,
           "bad request body: json: cannot unmarshal object into Go value of type []toxiproxy.Proxy")
    assert api.get("/proxies").json() == {}


def test_populate_stops_at_an_error_and_keeps_what_it_made(api: httpx.Client) -> None:
    with socket.create_server(("127.0.0.1", 0)) as holder:
        busy = f"127.0.0.1:{holder.getsockname()[1]}"
        answer = api.post("/populate", json=[{"name": "first", "upstream": "127.0.0.1:9"},
                                             {"name": "second", "upstream": "127.0.0.1:9", "listen": busy},
                                             {"name": "third", "upstream": "127.0.0.1:9"}])
    assert answer.status_code == 500 and answer.headers["content-type"] == "application/json"
    body = answer.json()
    assert (body["error"], body["status"]) == (f"listen tcp {busy}: bind: address already in use", 500)
    assert [p["name"] for p in body["proxies"]] == ["first"]
    assert sorted(api.get("/proxies").json()) == ["first"]


def test_reset_reports_a_proxy_that_cannot_listen_again(api: httpx.Client) -> None:
    api.post("/proxies", json={"name": "svc", "upstream": "127.0.0.1:9"})
    listen = api.post("/proxies/svc", json={"enabled": False}).json()["listen"]
    host, port = listen.rsplit(":", 1)
    with socket.create_server((host, int(port))):
        _error(api.post("/reset"), 500, f"listen tcp {listen}: bind: address already in use")
    assert api.post("/reset").status_code == 204
    assert api.get("/proxies/svc").json()["enabled"] is True


def test_keep_alive_and_chunked_bodies(api: httpx.Client, toxiproxy_server: object) -> None:
    host_port = str(api.base_url).removeprefix("http://").rstrip("/")
    with connect(host_port) as raw:
        body = b'{"name":"svc","upstream":"127.0.0.1:9"}'
        raw.sendall(b"POST /proxies HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
                    + b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answers = b""
        while chunk := raw.recv(65536):
            answers += chunk
    assert answers.startswith(b"HTTP/1.1 201 Created\r\n")
    assert answers.count(b"HTTP/1.1 ") == 2 and answers.endswith(f'{{"version": "{VERSION}"}}\n'.encode())


def test_a_garbled_request_is_a_400_and_the_connection_closes(api: httpx.Client) -> None:
    host_port = str(api.base_url).removeprefix("http://").rstrip("/")
    with connect(host_port) as raw:
        raw.sendall(b"HELLO\r\n\r\n")
        answer = b""
        while chunk := raw.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 400 Bad Request\r\n") and b"Connection: close" in answer
