"""Toxiproxy's records and wire shapes: proxies, toxics, request bodies and errors, as server 2.x has them.

Pure and synchronous: it decodes and checks request bodies the way Toxiproxy's Go handlers do (the
same defaults, the same order of checks, the same error strings), merges toxic updates, and renders
the JSON Toxiproxy answers with (compact, in Go's field order, ``<>&`` escaped).

What it deliberately does not do: sockets, tasks or time (``_proxy`` and ``_link`` do), routing
(``_api``), or any toxic's behaviour (``_toxics``; this module only knows their attribute names).
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Container, Mapping
from dataclasses import dataclass
from typing import Any

from durable_harness.fakes.toxiproxy._toxics import TOXICS, validate_attributes

__all__ = [
    "DIRECTIONS",
    "VERSION",
    "ApiError",
    "ProxyInput",
    "ToxicSpec",
    "format_hostport",
    "go_json",
    "loopback_host",
    "parse_populate",
    "parse_proxy_create",
    "parse_proxy_update",
    "parse_toxic_create",
    "parse_toxic_update",
    "split_hostport",
]

VERSION = "2.12.0"
DIRECTIONS = ("upstream", "downstream")  # the order Toxiproxy lists a proxy's toxics in
DEFAULT_LISTEN = "127.0.0.1:0"


class ApiError(Exception):
    """An API error: sent as ``{"error": message, "status": status}`` and a newline, as text/plain."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status} {message}")
        self.status = status
        self.message = message

    def shape(self) -> dict[str, Any]:
        return {"error": self.message, "status": self.status}


def bad_body(detail: str) -> ApiError:
    return ApiError(400, f"bad request body: {detail}")


def go_json(value: Any) -> bytes:
    """JSON as Go's ``json.Marshal`` writes it: compact, UTF-8, with ``<``, ``>`` and ``&`` escaped."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode()


def _go_float(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


@dataclass(frozen=True)
class ToxicSpec:
    """One toxic as configured: ``attributes`` holds every attribute of its type (defaults filled in)."""

    name: str
    type: str
    stream: str
    toxicity: float
    attributes: tuple[tuple[str, int], ...]

    @property
    def direction(self) -> str:
        return self.stream.lower()

    def attrs(self) -> dict[str, int]:
        return dict(self.attributes)

    def shape(self) -> dict[str, Any]:
        return {"attributes": self.attrs(), "name": self.name, "type": self.type, "stream": self.stream,
                "toxicity": _go_float(self.toxicity)}


@dataclass(frozen=True)
class ProxyInput:
    """A proxy as a request body asks for it."""

    name: str
    listen: str
    upstream: str
    enabled: bool


# -- decoding ----------------------------------------------------------------------------------------
_JSON_KINDS = {bool: "bool", int: "number", float: "number", str: "string", list: "array", dict: "object"}


def _decode(raw: bytes) -> Any:
    if not raw.strip():
        raise bad_body("EOF")
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise bad_body(str(exc)) from exc


def _kind(value: Any) -> str:
    return _JSON_KINDS.get(type(value), type(value).__name__)


def _field(body: Mapping[str, Any], key: str, want: type, owner: str, default: Any) -> Any:
    """``body[key]`` when it has the right JSON type; null or absent gives ``default`` (as Go decodes)."""
    value = body.get(key)
    if value is None:
        return default
    if want is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, want) or (want is not bool and isinstance(value, bool)):
        go_type = {str: "string", bool: "bool", float: "float32"}[want]
        raise bad_body(f"json: cannot unmarshal {_kind(value)} into Go struct field {owner}.{key} of type {go_type}")
    return value


def _object(value: Any, go_type: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise bad_body(f"json: cannot unmarshal {_kind(value)} into Go value of type {go_type}")
    return value


def _proxy_input(body: dict[str, Any]) -> ProxyInput:
    return ProxyInput(name=_field(body, "name", str, "Proxy", ""),
                      listen=_field(body, "listen", str, "Proxy", "") or DEFAULT_LISTEN,
                      upstream=_field(body, "upstream", str, "Proxy", ""),
                      enabled=_field(body, "enabled", bool, "Proxy", True))


def parse_proxy_create(raw: bytes) -> ProxyInput:
    """``POST /proxies``: name and upstream are required; listen defaults to a free loopback port."""
    proxy = _proxy_input(_object(_decode(raw), "toxiproxy.Proxy"))
    for key in ("name", "upstream"):
        if not getattr(proxy, key):
            raise ApiError(400, f"missing required field: {key}")
    return proxy


def parse_populate(raw: bytes) -> list[ProxyInput]:
    """``POST /populate``: every entry is checked before anything is created (N counts from 1)."""
    body = _decode(raw)
    if not isinstance(body, list):
        raise bad_body(f"json: cannot unmarshal {_kind(body)} into Go value of type []toxiproxy.Proxy")
    proxies = [_proxy_input(_object(entry, "toxiproxy.Proxy")) for entry in body]
    for number, proxy in enumerate(proxies, start=1):
        for key in ("name", "upstream"):
            if not getattr(proxy, key):
                raise ApiError(400, f"missing required field: {key} at proxy {number}")
    return proxies


def parse_proxy_update(raw: bytes, listen: str, upstream: str, enabled: bool) -> tuple[str, str, bool]:
    """``PATCH``/``POST /proxies/{p}``: fields left out keep their current value; the name never changes."""
    body = _object(_decode(raw), "toxiproxy.Proxy")
    return (_field(body, "listen", str, "Proxy", listen), _field(body, "upstream", str, "Proxy", upstream),
            _field(body, "enabled", bool, "Proxy", enabled))


def _attributes(type_name: str, raw: Any, current: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    """Known attributes decoded onto ``current`` (unknown ones ignored, as Go's decoder does)."""
    merged = dict(current)
    if raw is None:
        return tuple(merged.items())
    body = _object(raw, f"toxics.{TOXICS[type_name].__name__}")
    for key in merged:
        value = body.get(key)
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            shown = value if isinstance(value, (int, float)) and not isinstance(value, bool) else ""
            literal = f"{_kind(value)} {shown}".strip()
            raise bad_body(f"json: cannot unmarshal {literal} into Go struct field "
                           f"{TOXICS[type_name].__name__}.attributes.{key} of type int64")
        merged[key] = value
    problem = validate_attributes(type_name, merged)
    if problem:
        raise bad_body(problem)
    return tuple(merged.items())


def parse_toxic_create(raw: bytes, taken: Container[str]) -> ToxicSpec:
    """``POST /proxies/{p}/toxics``, checked in Toxiproxy's order: body, stream, type, name, attributes."""
    body = _object(_decode(raw), "toxics.ToxicWrapper")
    stream = _field(body, "stream", str, "ToxicWrapper", "") or "downstream"
    type_name = _field(body, "type", str, "ToxicWrapper", "")
    name = _field(body, "name", str, "ToxicWrapper", "")
    toxicity = _field(body, "toxicity", float, "ToxicWrapper", 1.0)
    if stream.lower() not in DIRECTIONS:
        raise ApiError(400, "stream was invalid, can be either upstream or downstream")
    name = name or f"{type_name}_{stream}"
    if type_name not in TOXICS:
        raise ApiError(400, "invalid toxic type")
    if name in taken:
        raise ApiError(409, "toxic already exists")
    defaults = {key: 0 for key in TOXICS[type_name].attributes}
    return ToxicSpec(name, type_name, stream, toxicity, _attributes(type_name, body.get("attributes"), defaults))


def parse_toxic_update(raw: bytes, current: ToxicSpec) -> ToxicSpec:
    """``PATCH``/``POST`` on a toxic: attributes merge into the current ones, toxicity is kept if left out."""
    body = _object(_decode(raw), "struct { Attributes interface {}; Toxicity float32 }")
    toxicity = _field(body, "toxicity", float, "Toxicity", current.toxicity)
    attributes = _attributes(current.type, body.get("attributes"), current.attrs())
    return ToxicSpec(current.name, current.type, current.stream, toxicity, attributes)


# -- addresses ---------------------------------------------------------------------------------------
def split_hostport(address: str) -> tuple[str, int]:
    """``host:port`` or ``[v6]:port`` -> (host, port); the message is Go's for a bad address."""
    host, sep, port_text = address.rpartition(":")
    if not sep:
        raise ApiError(500, f"listen tcp: address {address}: missing port in address")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not port_text.isdigit() or int(port_text) > 65535:
        raise ApiError(500, f"listen tcp: address {address}: invalid port")
    return host, int(port_text)


def loopback_host(host: str) -> str | None:
    """The loopback address to bind for ``host`` (``localhost`` -> 127.0.0.1), or None if it is not loopback."""
    if host in ("", "localhost"):
        return "127.0.0.1"
    try:
        return host if ipaddress.ip_address(host).is_loopback else None
    except ValueError:
        return None


def format_hostport(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
