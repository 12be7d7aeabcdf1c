"""The WordPress REST client of the control plane, and how it reads an outcome.

Every write ends in one of five readings:

- ``ok``: a 2xx answer; the write happened and the body says what it made;
- ``definite``: a 4xx the site itself gave (400, 401, 403, 404, …): the write was refused;
- ``not_sent``: the connection could not be opened, so provably nothing was sent;
- ``ambiguous``: a timeout, a reset, a 408/429/5xx: the write may or may not have happened. The
  caller marks the operation UNKNOWN and looks it up by its operation key before any retry;
- ``revoked``: a 401: the site refused the application password. It is recorded at once (see
  ``credentials``) and no request goes out with it again; a read that meets it raises
  ``CredentialRevoked`` itself.

Lookups use the site's ``operation_key`` filter on the list endpoints, and do not rely on it: a site
without the plugin ignores the parameter and lists everything, so each item's key is checked and
every page is read (at most ``MAX_PAGES``).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from tests.candidates.strangers.polling.credentials import CredentialRevoked, Credentials
from tests.candidates.strangers.polling.leases import LeaseLost

__all__ = ["Lookup", "Outcome", "WordPress"]

Reading = Literal["ok", "definite", "not_sent", "ambiguous", "revoked"]
_AMBIGUOUS_STATUSES = frozenset({408, 425, 429})
MAX_PAGES = 50


@dataclass(frozen=True)
class Outcome:
    reading: Reading
    status: int | None = None
    body: Any = None
    error: str = ""
    retry_after_s: float | None = None


@dataclass(frozen=True)
class Lookup:
    """What a lookup by operation key found; ``ok`` is False when the lookup itself failed."""

    ok: bool
    found: list[Mapping[str, Any]] = field(default_factory=list)
    error: str = ""
    retry_after_s: float | None = None


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _describe(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, Mapping):
        code, message = body.get("code"), body.get("message")
        if code or message:
            return f"HTTP {response.status_code} {code or ''}: {message or ''}".strip()
    return f"HTTP {response.status_code}"


def _read(send: Callable[[], httpx.Response]) -> Outcome:
    try:
        response = send()
    except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
        return Outcome("not_sent", error=f"connection failed: {type(exc).__name__}")
    except httpx.TransportError as exc:
        return Outcome("ambiguous", error=f"no answer: {type(exc).__name__}")
    status = response.status_code
    if status == 401:
        return Outcome("revoked", status=status, error=_describe(response))
    if 200 <= status < 300:
        try:
            body = response.json()
        except ValueError:
            return Outcome("ambiguous", status=status, error=f"HTTP {status} with an unreadable body")
        return Outcome("ok", status=status, body=body)
    if status in _AMBIGUOUS_STATUSES or status >= 500:
        return Outcome("ambiguous", status=status, error=_describe(response), retry_after_s=_retry_after(response))
    return Outcome("definite", status=status, error=_describe(response))


class WordPress:
    """Requests to the site's REST API through the harness-provided ``httpx.Client``."""

    def __init__(self, http: httpx.Client, site_url: str, username: str, app_password: str,
                 credentials: Credentials) -> None:
        self._http = http
        self._root = site_url.rstrip("/") + "/wp-json"
        self._auth = httpx.BasicAuth(username, app_password)
        self._credentials = credentials
        self.fence: Callable[[], AbstractContextManager[dict[str, str]]] = lambda: nullcontext({})

    def ready(self) -> None:
        """Raise ``CredentialRevoked`` (sending nothing) once the site has refused the credential."""
        self._credentials.check("wordpress")

    def refused(self, outcome: Outcome) -> CredentialRevoked:
        """Record the site's 401; the error to raise."""
        return self._credentials.refused("wordpress", outcome.error or "HTTP 401")

    def _send(self, send: Callable[[], httpx.Response]) -> Outcome:
        self.ready()
        outcome = _read(send)
        if outcome.reading == "revoked":
            self.refused(outcome)
        return outcome

    def _send_write(self, send: Callable[[], httpx.Response]) -> Outcome:
        """A write: inside the job's write entry (``leases``), its fencing token in a header."""
        with self.fence() as headers:
            self._http.headers.update(headers)
            try:
                outcome = self._send(send)
            finally:
                for name in headers:
                    self._http.headers.pop(name, None)
        if outcome.reading == "definite" and outcome.status == 409 and "rest_fencing_token_stale" in outcome.error:
            raise LeaseLost("the site refused our fencing token: another worker holds the job")
        return outcome

    def _send_read(self, send: Callable[[], httpx.Response]) -> Outcome:
        outcome = self._send(send)
        if outcome.reading == "revoked":
            raise CredentialRevoked("wordpress", outcome.error or "HTTP 401")
        return outcome

    # -- writes ------------------------------------------------------------------------------

    def upload_media(self, *, filename: str, content_base64: str, mime_type: str, alt_text: str,
                     operation_key: str) -> Outcome:
        try:
            data = base64.b64decode(content_base64, validate=True)
        except ValueError:
            return Outcome("definite", error="content_base64 is not valid base64")
        return self._send_write(lambda: self._http.post(
            f"{self._root}/wp/v2/media", auth=self._auth,
            files={"file": (filename, data, mime_type)},
            data={"alt_text": alt_text, "meta[operation_key]": operation_key}))

    def create_draft(self, *, title: str, content: str, excerpt: str, slug: str, operation_key: str) -> Outcome:
        body = {"title": title, "content": content, "excerpt": excerpt, "slug": slug, "status": "draft",
                "meta": {"operation_key": operation_key}}
        return self._send_write(lambda: self._http.post(f"{self._root}/wp/v2/posts", auth=self._auth, json=body))

    def update_post(self, post_id: int, fields: Mapping[str, Any]) -> Outcome:
        return self._send_write(lambda: self._http.post(f"{self._root}/wp/v2/posts/{post_id}", auth=self._auth,
                                                  json=dict(fields)))

    def publish(self, post_id: int) -> Outcome:
        return self.update_post(post_id, {"status": "publish"})

    def set_seo(self, post_id: int, *, title: str, description: str, focus_keyword: str) -> Outcome:
        body = {"objectType": "post", "objectID": post_id,
                "meta": {"rank_math_title": title, "rank_math_description": description,
                         "rank_math_focus_keyword": focus_keyword}}
        return self._send_write(lambda: self._http.post(f"{self._root}/rankmath/v1/updateMeta", auth=self._auth, json=body))

    # -- reads -------------------------------------------------------------------------------

    def get_post(self, post_id: int) -> Outcome:
        return self._send_read(lambda: self._http.get(f"{self._root}/wp/v2/posts/{post_id}", auth=self._auth,
                                            params={"context": "edit"}))

    def find_posts(self, operation_key: str) -> Lookup:
        return self._find("/wp/v2/posts", {"status": "any", "context": "edit", "operation_key": operation_key})

    def find_media(self, operation_key: str) -> Lookup:
        return self._find("/wp/v2/media", {"operation_key": operation_key})

    def _getter(self, route: str, query: Mapping[str, str], answered: list[httpx.Response]) -> Callable[[], httpx.Response]:
        """A GET of one listing page that keeps its response (for the paging headers) in ``answered``."""
        def send() -> httpx.Response:
            answered.append(self._http.get(f"{self._root}{route}", auth=self._auth, params=dict(query)))
            return answered[-1]
        return send

    def _find(self, route: str, params: Mapping[str, str]) -> Lookup:
        key = params["operation_key"]
        found: list[Mapping[str, Any]] = []
        for page in range(1, MAX_PAGES + 1):
            query = {**params, "per_page": "100", "page": str(page)}
            answered: list[httpx.Response] = []
            outcome = self._send_read(self._getter(route, query, answered))
            if outcome.reading != "ok":
                return Lookup(ok=False, error=outcome.error, retry_after_s=outcome.retry_after_s)
            if not isinstance(outcome.body, list):
                return Lookup(ok=False, error=f"{route}: expected a list, got {type(outcome.body).__name__}")
            found += [item for item in outcome.body if isinstance(item, Mapping) and isinstance(item.get("id"), int)
                      and isinstance(item.get("meta"), Mapping) and item["meta"].get("operation_key") == key]
            pages = answered[-1].headers.get("x-wp-totalpages", "1")
            if not pages.isdigit() or page >= int(pages):
                break
        return Lookup(ok=True, found=sorted(found, key=lambda item: int(item["id"])))
