"""WordPress REST calls, the classification of their failures, and lookups by operation key.

Every answer is classified as the contract's table says: ``ok`` (2xx), ``definite`` (4xx: nothing
was written), ``refused`` (401: the credential is revoked or wrong), ``fenced`` (409 from the
fencing gateway: a newer writer holds the job), ``unknown`` (408, 429, 5xx, a timeout or a reset:
the write may have happened) or ``not_sent`` (connection refused: provably nothing was sent).

``find`` looks a create up by its operation key: with the must-use plugin's filter when the site
has it, otherwise through every page of the listing, checking each item's ``meta.operation_key``
(titles and file names are never evidence).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import httpx

from gate import Authority, Forbidden, GatedTransport
from settings import Settings

UNKNOWN_STATUSES = {408, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524}


class LookupFailed(Exception):
    """A lookup could not be completed now (a read failed); try again later."""


@dataclass(frozen=True)
class WPResult:
    """One WordPress answer, classified."""

    kind: str  # ok | definite | refused | fenced | unknown | not_sent
    status: int | None
    body: Any
    detail: str
    retry_after: float | None = None

    @property
    def code(self) -> str:
        if isinstance(self.body, dict):
            return str(self.body.get("code") or "")
        return ""


def classify(response: httpx.Response) -> WPResult:
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text[:300]
    status = response.status_code
    retry_after: float | None = None
    header = response.headers.get("retry-after")
    if header:
        try:
            retry_after = float(header)
        except ValueError:
            retry_after = None
    code = body.get("code") if isinstance(body, dict) else None
    detail = f"HTTP {status} {code or ''}".strip()
    if 200 <= status < 300:
        return WPResult("ok", status, body, detail)
    if status == 401:
        return WPResult("refused", status, body, detail)
    if status == 409 and code == "rest_fencing_token_stale":
        return WPResult("fenced", status, body, detail)
    if status in UNKNOWN_STATUSES or status >= 500:
        return WPResult("unknown", status, body, detail, retry_after)
    return WPResult("definite", status, body, detail)


def meta_key(item: Any) -> str | None:
    meta = item.get("meta") if isinstance(item, dict) else None
    if isinstance(meta, dict):
        value = meta.get("operation_key")
        if isinstance(value, list):
            value = value[0] if value else None
        return str(value) if value is not None else None
    return None


class WordPress:
    """The site, through the gate."""

    def __init__(self, settings: Settings, authority: Authority) -> None:
        self.authority = authority
        self.http = httpx.Client(
            base_url=settings.wordpress_url + "/wp-json",
            auth=(settings.wordpress_username, settings.wordpress_app_password),
            timeout=settings.io_timeout,
            transport=GatedTransport(authority, "wordpress"),
        )

    def call(self, method: str, path: str, **kwargs: Any) -> WPResult:
        """One request, classified. ``Forbidden`` (the gate stopped it) propagates."""
        try:
            response = self.http.request(method, path, **kwargs)
        except Forbidden:
            raise
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            return WPResult("not_sent", None, None, f"{type(exc).__name__}: {exc}")
        except httpx.HTTPError as exc:
            return WPResult("unknown", None, None, f"{type(exc).__name__}: {exc}")
        result = classify(response)
        if result.kind == "refused":
            self.authority.refuse("wordpress", result.detail)
        return result

    # -- writes ------------------------------------------------------------------------
    @staticmethod
    def _fence(job_id: str, token: int) -> dict[str, str]:
        return {"X-Fencing-Token": f"{job_id}:{token}"}

    def create_draft(self, key: str, args: dict[str, Any], job_id: str, token: int) -> WPResult:
        body: dict[str, Any] = {"title": str(args.get("title") or ""),
                                "content": str(args.get("content") or ""),
                                "status": "draft", "meta": {"operation_key": key}}
        for name in ("excerpt", "slug"):
            if args.get(name) is not None:
                body[name] = str(args[name])
        return self.call("POST", "/wp/v2/posts", json=body, headers=self._fence(job_id, token))

    def upload_media(self, key: str, args: dict[str, Any], job_id: str, token: int) -> WPResult:
        data = base64.b64decode(str(args.get("content_base64") or ""))
        filename = str(args.get("filename") or "image.png")
        mime = str(args.get("mime_type") or "application/octet-stream")
        return self.call("POST", "/wp/v2/media", files={"file": (filename, data, mime)},
                         data={"alt_text": str(args.get("alt_text") or ""),
                               "meta[operation_key]": key},
                         headers=self._fence(job_id, token))

    def update_post(self, post_id: int, fields: dict[str, Any], job_id: str,
                    token: int) -> WPResult:
        return self.call("POST", f"/wp/v2/posts/{post_id}", json=fields,
                         headers=self._fence(job_id, token))

    def set_seo(self, post_id: int, args: dict[str, Any], job_id: str, token: int) -> WPResult:
        body = {"objectType": "post", "objectID": post_id, "meta": {
            "rank_math_title": str(args.get("title") or ""),
            "rank_math_description": str(args.get("description") or ""),
            "rank_math_focus_keyword": str(args.get("focus_keyword") or "")}}
        return self.call("POST", "/rankmath/v1/updateMeta", json=body,
                         headers=self._fence(job_id, token))

    # -- reads -------------------------------------------------------------------------
    def get_post(self, post_id: int) -> WPResult:
        return self.call("GET", f"/wp/v2/posts/{post_id}", params={"context": "edit"})

    def read_post(self, post_id: int, attempts: int = 3) -> dict[str, Any]:
        """The post as it is now (a read may simply be sent again)."""
        last = ""
        for _ in range(attempts):
            result = self.get_post(post_id)
            if result.kind == "ok" and isinstance(result.body, dict):
                return result.body
            if result.kind in ("definite", "refused"):
                raise LookupFailed(result.detail)
            last = result.detail
        raise LookupFailed(last)

    def find(self, collection: str, key: str) -> dict[str, Any] | None:
        """The post or medium carrying ``key``, or None. Raises LookupFailed when a read fails."""
        params: dict[str, Any] = {"operation_key": key, "per_page": 100, "context": "edit"}
        if collection == "posts":
            params["status"] = "any"
        page, pages, found = 1, 1, []
        while page <= pages:
            result = self._read(f"/wp/v2/{collection}", {**params, "page": page})
            items = result.body if isinstance(result.body, list) else []
            found += [item for item in items if meta_key(item) == key]
            if page == 1 and all(meta_key(item) == key for item in items):
                break  # the filter is installed: this answer is the whole truth
            pages = int(result.headers_total_pages or 1)
            page += 1
        if not found:
            return None
        return min(found, key=lambda item: int(item.get("id") or 0))

    def _read(self, path: str, params: dict[str, Any]) -> Any:
        last = ""
        for _ in range(3):
            try:
                response = self.http.get(path, params=params)
            except Forbidden:
                raise
            except httpx.HTTPError as exc:
                last = f"{type(exc).__name__}: {exc}"
                continue
            result = classify(response)
            if result.kind == "refused":
                self.authority.refuse("wordpress", result.detail)
                raise LookupFailed(result.detail)
            if result.kind == "ok":
                return _Page(result.body, response.headers.get("x-wp-totalpages"))
            if result.kind == "definite":
                raise LookupFailed(result.detail)
            last = result.detail
        raise LookupFailed(last)


@dataclass(frozen=True)
class _Page:
    body: Any
    headers_total_pages: str | None
