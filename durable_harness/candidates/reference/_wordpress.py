"""A small WordPress REST client that says whether a failure is definite.

``Definite``: the server answered and the write did not happen (4xx), or the request never left
(connection refused). ``Indefinite``: the write may have happened (timeout, reset, 5xx, 408).
Every write carries the operation key in the registered ``operation_key`` post meta, so it can be
found again with ``?operation_key=K`` (the site's must-use plugin). The lookup trusts neither the
filter nor the first page: a site without the plugin ignores the parameter (core ignores what it
does not know) and answers with every post, page by page, so each item's key is checked and every
page is read (bounded by ``MAX_LOOKUP_PAGES``).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any

import httpx

__all__ = ["Definite", "Indefinite", "WordPress"]

MAX_LOOKUP_PAGES = 50  # 5000 items: beyond that a lookup gives up (the caller keeps the write UNKNOWN)
_LOOKUP_FIELDS = "id,link,source_url,meta,title"


class Definite(Exception):
    def __init__(self, message: str, *, status: int | None = None, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after_s = retry_after_s

    @property
    def retryable(self) -> bool:
        return self.status is None or self.status == 429


class Indefinite(Exception):
    """The write may have happened. ``status`` is the HTTP status when one came (5xx, 408), None for a
    timeout or a reset."""

    def __init__(self, message: str, *, status: int | None = None, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after_s = retry_after_s


class WordPress:
    def __init__(self, http: httpx.Client, base_url: str, username: str, app_password: str) -> None:
        self._http = http
        self._api = base_url.rstrip("/") + "/wp-json"
        token = base64.b64encode(f"{username}:{app_password}".encode()).decode()
        self._auth = {"authorization": f"Basic {token}"}

    def request(self, method: str, route: str, **kwargs: Any) -> httpx.Response:
        headers = {**self._auth, **kwargs.pop("headers", {})}
        try:
            response = self._http.request(method, self._api + route, headers=headers, **kwargs)
        except httpx.ConnectError as err:
            raise Definite(f"{method} {route}: could not connect: {err}") from err
        except httpx.TransportError as err:  # timeouts, resets, protocol errors: it may have happened
            raise Indefinite(f"{method} {route}: {type(err).__name__}: {err}") from err
        if response.status_code < 400:
            return response
        retry_after = _retry_after(response)
        detail = f"{method} {route}: HTTP {response.status_code} {_code(response)}"
        if response.status_code >= 500 or response.status_code == 408:
            raise Indefinite(detail, status=response.status_code, retry_after_s=retry_after)
        raise Definite(detail, status=response.status_code, retry_after_s=retry_after)

    # -- business calls --------------------------------------------------------------------
    def find(self, kind: str, operation_key: str, *, all_pages: bool = True,
             exact: bool = True) -> list[Mapping[str, Any]]:
        """Every post (``kind='posts'``) or attachment (``'media'``) carrying ``operation_key``, from every
        page of the listing (``all_pages=False``: from the first page only)."""
        params = {"operation_key": operation_key, "context": "edit", "per_page": "100", "_fields": _LOOKUP_FIELDS}
        if kind == "posts":
            params["status"] = "any"
        found: list[Mapping[str, Any]] = []
        for page in range(1, MAX_LOOKUP_PAGES + 1):
            response = self.request("GET", f"/wp/v2/{kind}", params={**params, "page": str(page)})
            found += [item for item in response.json() if _key_of(item) == operation_key or not exact]
            if not all_pages or page >= _int(response.headers.get("x-wp-totalpages"), 1):
                break
        return sorted(found, key=lambda item: int(item["id"]))

    def find_by_name(self, kind: str, name: str) -> list[Mapping[str, Any]]:
        """Posts whose title is ``name``, or attachments whose file name starts with ``name``'s stem,
        newest first (a lookup by what the object is called, not by what made it)."""
        stem = name.rsplit(".", 1)[0] if kind == "media" else name
        params = {"search": stem, "context": "edit", "per_page": "100", "_fields": _LOOKUP_FIELDS}
        if kind == "posts":
            params["status"] = "any"
        listed: list[Mapping[str, Any]] = self.request("GET", f"/wp/v2/{kind}", params=params).json()
        if kind == "posts":
            return [item for item in listed if _raw(item.get("title")) == name]
        return [item for item in listed if str(item.get("source_url", "")).rsplit("/", 1)[-1].startswith(stem)]

    def find_by_slug(self, title: str) -> list[Mapping[str, Any]]:
        """Posts whose slug (a draft's: the one it would get on publish) is the one ``title`` is expected
        to get, lower case ASCII words joined by dashes (a lookup by what the site was thought to call it)."""
        expected = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
        params = {"search": title, "status": "any", "context": "edit", "per_page": "100",
                  "_fields": _LOOKUP_FIELDS + ",slug,generated_slug"}
        listed: list[Mapping[str, Any]] = self.request("GET", "/wp/v2/posts", params=params).json()
        return [item for item in listed if (item.get("slug") or item.get("generated_slug")) == expected]

    def upload(self, operation_key: str, filename: str, content: bytes, mime_type: str, alt_text: str) -> Mapping[str, Any]:
        files = {"file": (filename, content, mime_type)}
        data = {"alt_text": alt_text, "meta[operation_key]": operation_key}
        result: Mapping[str, Any] = self.request("POST", "/wp/v2/media", files=files, data=data).json()
        return result

    def create_post(self, operation_key: str, fields: Mapping[str, Any]) -> Mapping[str, Any]:
        body = {**fields, "status": "draft", "meta": {"operation_key": operation_key}}
        result: Mapping[str, Any] = self.request("POST", "/wp/v2/posts", json=body).json()
        return result

    def update_post(self, post_id: int, fields: Mapping[str, Any]) -> Mapping[str, Any]:
        result: Mapping[str, Any] = self.request("POST", f"/wp/v2/posts/{post_id}", json=dict(fields)).json()
        return result

    def get_post(self, post_id: int) -> Mapping[str, Any]:
        result: Mapping[str, Any] = self.request("GET", f"/wp/v2/posts/{post_id}", params={"context": "edit"}).json()
        return result

    def set_seo(self, post_id: int, meta: Mapping[str, str]) -> Mapping[str, Any]:
        body = {"objectType": "post", "objectID": post_id, "meta": dict(meta)}
        result: Mapping[str, Any] = self.request("POST", "/rankmath/v1/updateMeta", json=body).json()
        return result


def _key_of(item: Mapping[str, Any]) -> str | None:
    meta = item.get("meta")
    return str(meta.get("operation_key")) if isinstance(meta, Mapping) else None


def _raw(field: Any) -> Any:
    return field.get("raw", field.get("rendered")) if isinstance(field, Mapping) else field


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _code(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    return str(body.get("code", "")) if isinstance(body, dict) else ""
