"""What the conformance cases share: the ``Site`` under test, posts, uploads, a tiny PNG, error
assertions."""

from __future__ import annotations

import base64
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

_tokens = itertools.count(1)


@dataclass
class Site:
    """One WordPress under test: clients for the editor and for a visitor, and how to make more."""

    kind: str  # "fake" | "real"
    root: str  # the REST root, ".../wp-json"
    auth: tuple[str, str]
    make: Callable[..., httpx.Client]
    run_id: str
    _clients: list[httpx.Client] = field(default_factory=list)

    def client(self, auth: tuple[str, str] | None = None, *, early: bool = False,
               operation_key_query: bool = True) -> httpx.Client:
        made = self.make(auth, early, operation_key_query)
        self._clients.append(made)
        return made

    @property
    def editor(self) -> httpx.Client:
        return self.client(self.auth)

    @property
    def visitor(self) -> httpx.Client:
        return self.client(None)

    @property
    def token(self) -> str:
        """A word no other test, and no earlier run against the same site, has used."""
        return f"dhc{self.run_id}x{next(_tokens)}"

    def close(self) -> None:
        for c in self._clients:
            c.close()

# A 1x1 PNG: small enough for every site, a real image for core's type check.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def post(client: httpx.Client, **fields: Any) -> dict[str, Any]:
    """Create a post (a draft unless ``status`` says otherwise) and return its body; fails loudly."""
    r = client.post("/wp/v2/posts", json={"status": "draft", **fields})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def raw_upload(client: httpx.Client, disposition: str | bytes, data: bytes = PNG,
               content_type: str = "image/png", **headers: str) -> httpx.Response:
    value = disposition if isinstance(disposition, bytes) else disposition.encode("utf-8")
    return client.post("/wp/v2/media", content=data, headers={"content-type": content_type,
                                                              "content-disposition": value, **headers})


def multipart_upload(client: httpx.Client, filename: str, data: bytes = PNG, content_type: str = "image/png",
                     fields: dict[str, str] | None = None, **headers: str) -> httpx.Response:
    return client.post("/wp/v2/media", files={"file": (filename, data, content_type)}, data=fields or {},
                       headers=headers)


def file_name(media: dict[str, Any]) -> str:
    """The stored file name of an upload (``2026/01/x.png`` -> ``x.png``)."""
    return str(media["source_url"]).rsplit("/", 1)[-1]


def error(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """Assert ``r`` is core's error ``code`` with ``status``; return its body."""
    assert r.status_code == status, f"expected {status} {code}, got {r.status_code}: {r.text[:300]}"
    body: dict[str, Any] = r.json()
    assert body.get("code") == code, body
    assert body["data"]["status"] == status, body
    return body


def ids(r: httpx.Response) -> list[int]:
    assert r.status_code == 200, r.text[:300]
    return [int(item["id"]) for item in r.json()]


def links(r: httpx.Response) -> dict[str, str]:
    """The ``Link`` header's targets by ``rel``."""
    out = {}
    for part in r.headers.get("link", "").split(", <"):
        target, _, params = part.partition(">;")
        rel = params.split('rel="', 1)[-1].split('"', 1)[0]
        out[rel] = target.lstrip("<")
    return out
