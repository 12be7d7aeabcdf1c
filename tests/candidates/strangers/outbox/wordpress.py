"""WordPress over REST: the writes, the read-backs, and what each answer proves.

Every answer is classified once, here, into an :class:`Answer` kind:

- ``ok``: a 2xx; ``definite``: a 4xx that proves nothing was written (400, 403, 404, ...);
- ``revoked``: a 401, or a 400 whose details nest one — the credential is refused; it is recorded
  at once and never used again;
- ``fenced``: 409 ``rest_fencing_token_stale`` — another worker holds the job now;
- ``down``: the connection was refused before anything was sent (nothing was written);
- ``unknown``: 408, 409, 429, 5xx, a timeout, a reset — the write may have happened.

Read-backs find a write by its operation key: the listing filter when the site has it, and in any
case every page of the listing, each item's ``meta.operation_key`` checked (a site without the
plugin ignores the filter and lists everything, newest first).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Callable

import httpx

UNKNOWN_STATUSES = {408, 409, 425, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524}
MAX_PAGES = 200


@dataclass
class Answer:
    """One request's outcome, classified."""

    kind: str
    status: int | None = None
    code: str | None = None
    body: Any = None
    retry_after: float | None = None
    headers: dict[str, str] = field(default_factory=dict)
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.kind == "ok"

    def describe(self) -> str:
        if self.status is not None:
            return f"HTTP {self.status} {self.code or ''}".strip()
        return self.detail or self.kind


def classify_response(response: httpx.Response) -> Answer:
    status = response.status_code
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text[:500]
    code = body.get("code") if isinstance(body, dict) else None
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        code = body["error"].get("code") or code
    retry_after = None
    raw_retry = response.headers.get("retry-after")
    if raw_retry:
        try:
            retry_after = float(raw_retry)
        except ValueError:
            retry_after = None
    headers = {k.lower(): v for k, v in response.headers.items()}
    if 200 <= status < 300:
        kind = "ok"
    elif status == 401 or (status == 400 and _nests_401(body)):
        kind = "revoked"  # core WordPress runs a refused password anonymously: a listing with
        # status=any or context=edit then answers 400 whose details carry a 401
    elif status == 409 and code == "rest_fencing_token_stale":
        kind = "fenced"
    elif status in UNKNOWN_STATUSES or status >= 500:
        kind = "unknown"
    else:
        kind = "definite"
    return Answer(kind, status, code, body, retry_after, headers)


def _nests_401(body: Any) -> bool:
    """Whether an error body's ``data`` carries ``"status": 401`` anywhere (its details)."""
    data = body.get("data") if isinstance(body, dict) else None
    stack: list[Any] = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("status") == 401:
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def classify_error(exc: Exception) -> Answer:
    if isinstance(exc, httpx.ConnectError):
        return Answer("down", detail=f"{type(exc).__name__}: {exc}")
    return Answer("unknown", detail=f"{type(exc).__name__}: {exc}")


class WordPress:
    """The simulated site, through the env's HTTP client (the harness's gate)."""

    def __init__(self, env: Any, on_revoked: Callable[[str], None]) -> None:
        self.http: httpx.Client = env.http
        self.root = env.wordpress_url.rstrip("/") + "/wp-json"
        self.auth = (env.wordpress_username, env.wordpress_app_password)
        self.on_revoked = on_revoked

    def request(self, method: str, path: str, *, fence: str | None = None,
                **kwargs: Any) -> Answer:
        headers = dict(kwargs.pop("headers", {}) or {})
        if fence:
            headers["X-Fencing-Token"] = fence
        try:
            response = self.http.request(method, self.root + path, auth=self.auth,
                                         headers=headers, **kwargs)
        except httpx.HTTPError as exc:
            return classify_error(exc)
        answer = classify_response(response)
        if answer.kind == "revoked":
            self.on_revoked("wordpress")
        return answer

    # --- writes ---------------------------------------------------------------------------------
    def upload_media(self, key: str, args: dict[str, Any], fence: str) -> Answer:
        data = base64.b64decode(args.get("content_base64") or "")
        files = {"file": (str(args.get("filename") or "image.png"), data,
                          str(args.get("mime_type") or "application/octet-stream"))}
        form = {"alt_text": str(args.get("alt_text") or ""), "meta[operation_key]": key}
        return self.request("POST", "/wp/v2/media", files=files, data=form, fence=fence)

    def create_draft(self, key: str, args: dict[str, Any], fence: str) -> Answer:
        body: dict[str, Any] = {"title": args.get("title", ""), "content": args.get("content", ""),
                                "status": "draft", "meta": {"operation_key": key}}
        for optional in ("excerpt", "slug"):
            if args.get(optional) is not None:
                body[optional] = args[optional]
        return self.request("POST", "/wp/v2/posts", json=body, fence=fence)

    def update_post(self, post_id: int, fields: dict[str, Any], fence: str) -> Answer:
        return self.request("POST", f"/wp/v2/posts/{post_id}", json=fields, fence=fence)

    def set_seo(self, post_id: int, args: dict[str, Any], fence: str) -> Answer:
        body = {"objectType": "post", "objectID": post_id,
                "meta": {"rank_math_title": args.get("title", ""),
                         "rank_math_description": args.get("description", ""),
                         "rank_math_focus_keyword": args.get("focus_keyword", "")}}
        return self.request("POST", "/rankmath/v1/updateMeta", json=body, fence=fence)

    # --- reads ----------------------------------------------------------------------------------
    def get_post(self, post_id: int) -> Answer:
        return self.request("GET", f"/wp/v2/posts/{post_id}", params={"context": "edit"})

    def find_by_key(self, collection: str, key: str) -> tuple[Answer, list[dict[str, Any]]]:
        """Every item of ``collection`` (posts or media) carrying operation key ``key``.

        The answer is ``ok`` only when every page was read; otherwise the lookup proves nothing.
        """
        found: list[dict[str, Any]] = []
        page = 1
        last = Answer("ok")
        while page <= MAX_PAGES:
            params: dict[str, Any] = {"operation_key": key, "per_page": 100, "page": page,
                                      "context": "edit"}
            if collection == "posts":
                params["status"] = "any"
            last = self.request("GET", f"/wp/v2/{collection}", params=params)
            if not last.ok:
                return last, found
            items = last.body if isinstance(last.body, list) else []
            for item in items:
                meta = item.get("meta") if isinstance(item, dict) else None
                if isinstance(meta, dict) and meta.get("operation_key") == key:
                    found.append(item)
            try:
                total = int(last.headers.get("x-wp-totalpages", "1") or 1)
            except ValueError:
                total = 1
            if page >= total or not items:
                return last, found
            page += 1
        return Answer("unknown", detail="too many pages"), found
