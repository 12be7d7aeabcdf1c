"""WordPress REST calls: the writes the agent asks for, and the lookups that reconcile them.

Creates (posts, media) carry the operation key as post meta, and are looked up by it with the
`operation_key` list filter when the site has it; every page of the listing is read and each
item's own `meta.operation_key` is checked, so a site without the filter (which then lists
everything) is searched all the same. Writes carry `X-Fencing-Token: <job_id>:<token>`.
"""

from __future__ import annotations

import base64
from typing import Any

import httpx

from .httpio import http_client, json_body
from .settings import Clock, Settings


class WordPress:
    """A thin client of the site's REST API (root `<url>/wp-json`)."""

    def __init__(self, settings: Settings, clock: Clock) -> None:
        self.root = settings.wordpress_url + "/wp-json"
        raw = f"{settings.wordpress_username}:{settings.wordpress_app_password}".encode()
        self.auth = {"Authorization": "Basic " + base64.b64encode(raw).decode()}
        self.clock = clock
        self.http = http_client(clock.timeout(30.0))

    def _headers(self, job_id: str | None = None, token: int | None = None) -> dict[str, str]:
        headers = dict(self.auth)
        if job_id is not None and token is not None:
            headers["X-Fencing-Token"] = f"{job_id}:{token}"
        return headers

    def _timeout(self) -> float:
        return self.clock.timeout(30.0)

    # -- writes -------------------------------------------------------------------------------

    def upload_media(self, args: dict[str, Any], key: str, job_id: str, token: int) -> httpx.Response:
        content = base64.b64decode(str(args.get("content_base64", "")))
        files = {"file": (str(args.get("filename", "image.png")), content,
                          str(args.get("mime_type", "application/octet-stream")))}
        data = {"alt_text": str(args.get("alt_text", "")), "meta[operation_key]": key}
        return self.http.post(self.root + "/wp/v2/media", files=files, data=data,
                              headers=self._headers(job_id, token), timeout=self._timeout())

    def create_draft(self, args: dict[str, Any], key: str, job_id: str, token: int) -> httpx.Response:
        body: dict[str, Any] = {"title": args.get("title", ""), "content": args.get("content", ""),
                                "status": "draft", "meta": {"operation_key": key}}
        for name in ("excerpt", "slug"):
            if args.get(name) is not None:
                body[name] = args[name]
        return self.http.post(self.root + "/wp/v2/posts", json=body,
                              headers=self._headers(job_id, token), timeout=self._timeout())

    def update_post(self, post_id: int, fields: dict[str, Any], job_id: str, token: int) -> httpx.Response:
        return self.http.post(f"{self.root}/wp/v2/posts/{post_id}", json=fields,
                              headers=self._headers(job_id, token), timeout=self._timeout())

    def set_seo(self, post_id: int, args: dict[str, Any], job_id: str, token: int) -> httpx.Response:
        body = {"objectType": "post", "objectID": post_id,
                "meta": {"rank_math_title": args.get("title", ""),
                         "rank_math_description": args.get("description", ""),
                         "rank_math_focus_keyword": args.get("focus_keyword", "")}}
        return self.http.post(self.root + "/rankmath/v1/updateMeta", json=body,
                              headers=self._headers(job_id, token), timeout=self._timeout())

    def publish(self, post_id: int, job_id: str, token: int) -> httpx.Response:
        return self.update_post(post_id, {"status": "publish"}, job_id, token)

    # -- reads --------------------------------------------------------------------------------

    def get_post(self, post_id: int) -> httpx.Response:
        return self.http.get(f"{self.root}/wp/v2/posts/{post_id}", params={"context": "edit"},
                             headers=self._headers(), timeout=self._timeout())

    def find_by_key(self, collection: str, key: str) -> tuple[httpx.Response | None, dict[str, Any] | None]:
        """Look a create up by its operation key through every page of `posts` or `media`.

        Returns (the failed response, None) when a listing was refused, else (None, the item or None).
        """
        page, pages = 1, 1
        params: dict[str, Any] = {"operation_key": key, "context": "edit", "per_page": 100}
        if collection == "posts":
            params["status"] = "any"
        while page <= pages:
            params["page"] = page
            resp = self.http.get(f"{self.root}/wp/v2/{collection}", params=params,
                                 headers=self._headers(), timeout=self._timeout())
            if resp.status_code >= 300:
                if resp.status_code == 400 and page > 1 and _page_out_of_range(resp):
                    return None, None
                return resp, None
            items = json_body(resp)
            for item in items if isinstance(items, list) else []:
                meta = item.get("meta") if isinstance(item, dict) else None
                if isinstance(meta, dict) and meta.get("operation_key") == key:
                    return None, item
            try:
                pages = int(resp.headers.get("X-WP-TotalPages", "1") or 1)
            except ValueError:
                pages = 1
            page += 1
        return None, None


def _page_out_of_range(resp: httpx.Response) -> bool:
    body = json_body(resp)
    return isinstance(body, dict) and body.get("code") == "rest_post_invalid_page_number"


def raw(field: Any) -> Any:
    """`content.raw` (context=edit), or the value itself."""
    if isinstance(field, dict):
        return field.get("raw", field.get("rendered"))
    return field
