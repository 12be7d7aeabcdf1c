"""Before the first run against a real service: can the scenarios mean there what they say?

A site without what the article workload and the contract rely on would make a correct control
plane fail for the site's reasons (a job whose SEO can never be set is "not done"), which is never
the candidate's fault. So the site is read once, with the harness's credentials, before anything
runs: its REST API answers at ``/wp-json``; the harness's user can write, upload, publish and delete
posts; posts and media carry the ``operation_key`` meta and can be looked up by it (the must-use
plugins of ``.ci/real-wordpress.sh``); Rank Math's ``POST /rankmath/v1/updateMeta`` is there. Every
problem is named in one message, with what to install. A sessions API by URL is asked for a listing
of sessions by metadata, with the harness's key.

What it deliberately does not do: change the site, or check what only a run can show.
"""

from __future__ import annotations

from typing import Any

import httpx

from durable_harness.harness.services._upstream import Upstream

__all__ = ["checked_problems", "sessions_problems", "wordpress_problems"]

_TIMEOUT_S = 30.0
_CAPABILITIES = ("edit_posts", "upload_files", "publish_posts", "delete_posts")
_PLUGINS = "the must-use plugins of .ci/real-wordpress.sh"


_CHECKED: dict[tuple[str, str], list[str]] = {}  # (site, user) -> its problems: read once per process


def checked_problems(site: Upstream) -> list[str]:
    """``wordpress_problems``, read once per process for each site and user (the command line's check
    and every run's build ask the same)."""
    key = (site.url, site.user)
    if key not in _CHECKED:
        _CHECKED[key] = sessions_problems(site) if site.name == "openai" else wordpress_problems(site)
    return _CHECKED[key]


def sessions_problems(api: Upstream, transport: httpx.BaseTransport | None = None) -> list[str]:
    """What a sessions API by URL lacks: it answers a listing of sessions, by metadata, with the key."""
    with httpx.Client(timeout=_TIMEOUT_S, transport=transport, headers={"accept-encoding": "identity"}) as http:
        try:
            answer = http.get(f"{api.url}/agents/sessions", params={"limit": "1", "metadata[job_id]": "preflight"},
                              headers={"authorization": f"Bearer {api.secret}", "openai-beta": "agents=v1"})
        except httpx.HTTPError as err:
            return [f"it does not answer ({type(err).__name__}: {err})"]
        if answer.status_code in (401, 403):
            return [f"GET {api.url}/agents/sessions refuses DH_OPENAI_API_KEY (HTTP {answer.status_code})"]
        page = _json(answer) if answer.status_code == 200 else None
        if not isinstance(page, dict) or not isinstance(page.get("data"), list):
            return [f"GET {api.url}/agents/sessions answered HTTP {answer.status_code}, not a listing of sessions "
                    "(give the API's base URL, the one OPENAI_BASE_URL would name, e.g. https://api.example.com/v1)"]
    return []


def wordpress_problems(site: Upstream, transport: httpx.BaseTransport | None = None) -> list[str]:
    """What the real site lacks, in words a person can act on; empty when it has everything."""
    with httpx.Client(base_url=site.url, auth=(site.user, site.secret), timeout=_TIMEOUT_S, transport=transport,
                      headers={"accept-encoding": "identity"}) as http:
        try:
            index = _json(http.get("/wp-json/"))
        except httpx.HTTPError as err:
            return [f"it does not answer ({type(err).__name__}: {err})"]
        if not isinstance(index, dict) or not isinstance(index.get("routes"), dict):
            return ["GET /wp-json/ is not its REST index (pretty permalinks are needed: /wp-json/ must answer)"]
        problems = _user(http) + _routes(index["routes"])
        for collection in ("posts", "media"):
            schema = _json(http.request("OPTIONS", f"/wp-json/wp/v2/{collection}"))
            meta = (((schema or {}).get("schema") or {}).get("properties") or {}).get("meta") or {}
            if "operation_key" not in (meta.get("properties") or {}):
                problems.append(f"{collection} have no operation_key meta over REST ({_PLUGINS}: operation-key-meta.php)")
    return problems


def _user(http: httpx.Client) -> list[str]:
    me = _json(http.get("/wp-json/wp/v2/users/me", params={"context": "edit"}))
    if not isinstance(me, dict) or "id" not in me:
        return ["DH_WORDPRESS_USER and DH_WORDPRESS_APP_PASSWORD are refused (GET /wp-json/wp/v2/users/me did not "
                "answer who they are)"]
    capabilities: dict[str, Any] = me["capabilities"] if isinstance(me.get("capabilities"), dict) else {}
    missing = [c for c in _CAPABILITIES if not capabilities.get(c)]
    return [f"the user {me.get('slug') or me['id']!r} cannot {', '.join(missing)} (give it the editor role)"] if missing else []


def _routes(routes: dict[str, Any]) -> list[str]:
    problems = []
    for collection in ("posts", "media"):
        route = routes.get(f"/wp/v2/{collection}") or {}
        args = next((e.get("args") or {} for e in route.get("endpoints") or () if "GET" in (e.get("methods") or ())), {})
        if "operation_key" not in args:
            problems.append(f"/wp/v2/{collection} cannot be looked up by ?operation_key= ({_PLUGINS}: "
                            "operation-key-query.php)")
    if "/rankmath/v1/updateMeta" not in routes:
        problems.append("there is no POST /rankmath/v1/updateMeta (Rank Math, or the stand-in of .ci/real-wordpress.sh: "
                        "rank-math-update-meta.php)")
    return problems


def _json(answer: httpx.Response) -> Any:
    if answer.status_code != 200:
        return None
    try:
        return answer.json()
    except ValueError:
        return None
