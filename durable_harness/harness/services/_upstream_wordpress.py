"""A real WordPress behind the gate (``--service wordpress=URL``): the gate's ``Service`` for it.

The candidate talks to the gate as it does to the fake (the same URL, ``http://wordpress.dh.test``,
and a user and application password the harness minted); each request is forwarded to the real
site with the harness's own credentials (``_upstream``), and the site's answer comes back with the
site's address rewritten to the gate's, so that every link the candidate follows goes through the
gate too. Faults fire at the gate as against the fake: a lost response after the site committed,
an error in place of its answer, a refusal before forwarding, a pause.

Credentials: the minted password in force is replaced by the harness's; once an operator revoked
it (``revoke_app_password``), the request goes to the site with a wrong password, so that the site
answers as it answers a revoked one (WordPress alone runs it anonymously; a site with a plugin
that resolves users early answers 401). A request with any other credential goes as it came.

Ground truth is what the real site holds, read with the harness's credentials: every item the gate
saw the site create or change in this run (its id is in the site's answer, even when a fault kept
that answer from the candidate), and any post carrying this run's job id that the gate did not
see made (a create whose answer never came back from the site). When each was created and
changed is the run's time at which the gate saw it; the content of each change is the site's own
answer. During the run that is the gate's record (cheap: conditions read it at every step); once
at the end (``settle``) every item is read again from the site. A run's job ids carry a random
suffix, so runs side by side on one site (or leftovers of a run kept with ``--keep``) never see
each other's posts by their operation keys. ``close`` deletes what the run created
(``force=true``), unless it is kept.

What it deliberately does not do: write as the site's other people (a busy site, its colleague:
scenarios that need them are fake-only, ``_applicability``) or judge anything.
"""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import hashlib
import json
import email.utils
import random
import sys
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx

from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._errors import HarnessError
from durable_harness.harness.services._upstream import Upstream
from durable_harness.harness.services._upstream_record import Seen, event, media_truth, post_truth, rank_math_of, raw
from durable_harness.wire import Request, Response

__all__ = ["UpstreamWordPress"]

_TIMEOUT_S = 30.0
_WRITES = ("POST", "PUT", "PATCH", "DELETE")
_DROP_REQUEST = {"host", "content-length", "authorization", "connection", "accept-encoding", "transfer-encoding",
                 "keep-alive", "te", "upgrade", "proxy-authorization"}
# The site's Date is its wall clock: the gate's answers say the run's time (the loopback servers add it).
_DROP_RESPONSE = {"content-length", "connection", "transfer-encoding", "content-encoding", "keep-alive", "date"}
_TYPES = {"post": "posts", "page": "pages", "attachment": "media"}
_UNSEEN = "unknown (the gate never saw the site's answer)"


class UpstreamWordPress:
    """The gate's ``Service`` for a real site, and its ground truth."""

    name = "wordpress"
    root = "/wp-json"
    real = True

    def __init__(self, clock: VirtualClock, site: Upstream, *, host: str, username: str, password: str,
                 job_ids: Iterable[str], keep: bool = False, transport: httpx.BaseTransport | None = None,
                 rng: random.Random | None = None) -> None:
        self.host = host
        self.auth_mode = "site"
        self._clock = clock
        self._site = site
        self._origin = _origin(site.url)
        self._base = site.url  # what the site's links start with; the gate's address replaces it
        self._username = username
        self._passwords: dict[str, tuple[int, float | None]] = {_normalise(password): (1, None)}  # secret -> (number, revoked_at)
        self._job_ids = tuple(sorted(set(job_ids)))
        self._offset: _dt.timedelta | None = None  # the site's time less the run's (``_site_offset``)
        self._rng = rng or random.Random(0)  # the passwords it issues (the run's seed, as the fake's)
        self._keep = keep
        self._http = httpx.Client(base_url=site.url, timeout=_TIMEOUT_S, transport=transport, follow_redirects=False)
        self._admin = httpx.BasicAuth(site.user, site.secret)
        self._items: dict[tuple[str, int], Seen] = {}
        self._mutations = 0
        self._settled = False
        self.cleaned: list[str] = []  # what ``close`` deleted, as "posts/12"

    # -- the Service protocol ------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        label = self.credential(request)
        method = (request.arg("_method") or request.header("x-http-method-override") or request.method).upper()
        try:
            answer = self._http.request(request.method, _target(request), headers=self._headers(request),
                                        content=request.body or None)
        except httpx.HTTPError as err:  # the site did not answer: what a proxy in front of it says
            return Response(502, {"content-type": "application/json; charset=UTF-8"}, json.dumps({
                "code": "upstream_unreachable", "message": f"The site did not answer: {type(err).__name__}.",
                "data": {"status": 502}}).encode())
        body = answer.content
        if _is_text(answer.headers.get("content-type", "")):
            body = self._to_gate(body)
        headers = {k.lower(): self._to_gate_text(v) for k, v in answer.headers.items() if k.lower() not in _DROP_RESPONSE}
        if method in _WRITES and 200 <= answer.status_code < 300:
            self._mutations += 1
            self._observe(request, method, answer, label)
        return Response(answer.status_code, headers, body)

    def mutations(self) -> int:
        return self._mutations

    def credential(self, request: Request) -> str | None:
        given = _basic(request.header("authorization"))
        if given is None or not given[1]:
            return "anonymous"
        login, password = given
        known = self._passwords.get(_normalise(password))
        if login != self._username or known is None:
            return f"{login}/not-minted"
        number, revoked_at = known
        label = f"{self._username}/app-password#{number}"
        return label + " (revoked)" if revoked_at is not None else label

    def intent(self, request: Request) -> Any:
        from durable_harness.fakes.wordpress._intent import read_intent

        return read_intent(self, request, self.root)  # type: ignore[arg-type]  # ``get`` is all it reads

    # -- what read_intent asks of the site's state ---------------------------------------------
    def get(self, item_id: int, type_: str = "post") -> Seen | None:
        seen = self._items.get((type_, item_id))
        if seen is not None:
            return None if seen.deleted_at is not None else seen
        record = self._read(type_, item_id)
        if record is None:
            return None
        seen = self._items[(type_, item_id)] = Seen(item_id, type_, record)
        return seen

    # -- the harness's controls ----------------------------------------------------------------
    def revoke_app_password(self, number: int | None = None) -> list[int]:
        now = self._clock.now()
        revoked = []
        for secret, (n, at) in list(self._passwords.items()):
            if at is None and (number is None or n == number):
                self._passwords[secret] = (n, now)
                revoked.append(n)
        return revoked

    def issue_app_password(self) -> str:
        number = len(self._passwords) + 1
        alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
        password = " ".join("".join(self._rng.choice(alphabet) for _ in range(4)) for _ in range(6))
        self._passwords[_normalise(password)] = (number, None)
        return password

    # Writes by the site's people (a busy site's content, its colleague), made on the real site with the
    # harness's credentials, not through the gate: recorded as theirs (``by``), and deleted with the run's.
    def write_post(self, *, title: str, content: str, status: str, by: str, author: int, excerpt: str = "",
                   date: _dt.datetime | None = None, operation_key: str | None = None) -> int:
        body: dict[str, Any] = {"title": title, "content": content, "excerpt": excerpt, "status": status}
        if date is not None:  # as far from the site's now (its own clock) as the scenario put it from the run's
            body["date_gmt"] = (date + self._site_offset()).strftime("%Y-%m-%dT%H:%M:%S")
        if operation_key is not None:
            body["meta"] = {"operation_key": operation_key}
        return self._person_writes("posts", {"json": body}, by=by)

    def write_media(self, *, filename: str, data: bytes, by: str, author: int, title: str | None = None,
                    operation_key: str | None = None) -> int:
        fields = {"title": title or filename.rpartition(".")[0]}
        if operation_key is not None:
            fields["meta[operation_key]"] = operation_key
        return self._person_writes("media", {"files": {"file": (filename, data, "image/png")}, "data": fields}, by=by,
                                   sha256=hashlib.sha256(data).hexdigest())

    def _person_writes(self, collection: str, send: dict[str, Any], *, by: str, sha256: str | None = None) -> int:
        answer = self._harness_call(f"write of {collection}", "POST", f"/wp-json/wp/v2/{collection}", (201,),
                                    params={"context": "edit"}, **send)
        if answer.status_code != 201:
            raise HarnessError(f"the real WordPress at {self._origin} has no {collection} route (HTTP {answer.status_code})")
        self._mutations += 1
        record = answer.json()
        seen = self._note(str(record["type"]), record, by=by, action="upload" if collection == "media" else "create",
                          made=True)
        if sha256 is not None:
            seen.upload_sha256 = sha256
        return seen.id

    def edit_post(self, post_id: int, *, by: str, title: str | None = None, excerpt: str | None = None,
                  status: str | None = None, content: str | None = None) -> bool:
        """A person's edit, made on the real site with the harness's credentials (not through the gate)."""
        change = {k: v for k, v in {"title": title, "excerpt": excerpt, "status": status, "content": content}.items()
                  if v is not None}
        answer = self._harness_call(f"edit of post {post_id}", "POST", f"/wp-json/wp/v2/posts/{post_id}", (200,),
                                    json=change, params={"context": "edit"})
        if answer.status_code != 200:
            return False
        self._mutations += 1
        self._note("post", answer.json(), by=by, action="update")
        return True

    # -- ground truth ------------------------------------------------------------------------
    def truth(self) -> dict[str, Any]:
        own = sorted((s for s in self._items.values() if s.own), key=lambda s: (s.type, s.id))
        return {
            "site_url": self._origin,
            "auth_mode": self.auth_mode,
            "real": True,
            "posts": [post_truth(s) for s in own if s.type != "attachment"],
            "media": [media_truth(s, self._to_gate_text) for s in own if s.type == "attachment"],
            "app_passwords": [{"label": f"{self._username}/app-password#{n}", "revoked_at": at}
                              for n, at in sorted(self._passwords.values())],
            "mutations": self._mutations,
        }

    def settle(self) -> None:
        """Read every item of the run again from the site, and find the job's posts the gate did not see made."""
        if self._settled:
            return
        self._settled = True
        now = self._clock.now()
        for job_id in self._job_ids:
            for record in self._search(job_id):
                key = (str(record.get("type") or "post"), int(record["id"]))
                if key not in self._items or not self._items[key].own:
                    self._items[key] = Seen(key[1], key[0], record, own=True, created_at=now, created_by=_UNSEEN)
        for seen in [s for s in self._items.values() if s.own and s.deleted_at is None]:
            again = self._read(seen.type, seen.id)
            if again is None:
                seen.deleted_at = now
                seen.events.append({"at": now, "by": _UNSEEN, "action": "delete", "status": seen.record.get("status")})
            else:
                if again.get("status") != seen.record.get("status"):
                    seen.events.append(event(seen.type, again, _UNSEEN, "update", now))
                seen.record = again
                seen.rank_math.update(rank_math_of(again))

    def close(self) -> None:
        """Delete what the run created (unless kept), then close the connection to the site."""
        try:
            if not self._keep:
                for seen in sorted((s for s in self._items.values() if s.own and s.created_by is not None),
                                   key=lambda s: (s.type == "attachment", s.id)):
                    path = f"/wp-json/wp/v2/{_TYPES.get(seen.type, 'posts')}/{seen.id}"
                    try:
                        status: int | str = self._call("DELETE", path, params={"force": "true"}).status_code
                    except httpx.HTTPError as err:
                        status = type(err).__name__
                    if isinstance(status, int) and (status < 300 or status in (404, 410)):
                        self.cleaned.append(path.removeprefix("/wp-json/wp/v2/"))
                    else:  # said where whoever ran it reads, never silently left on their site
                        print(f"durable-harness: could not delete {path.removeprefix('/wp-json/wp/v2/')} from the real "
                              f"wordpress at {self._origin} ({status}): delete it by hand", file=sys.stderr)
        finally:
            self._http.close()

    # -- inside --------------------------------------------------------------------------------
    def _headers(self, request: Request) -> dict[str, str]:
        headers = {k: v for k, v in request.headers.items() if k not in _DROP_REQUEST}
        headers["accept-encoding"] = "identity"
        given = _basic(request.header("authorization"))
        if given is None:
            if request.header("authorization"):
                headers["authorization"] = str(request.header("authorization"))
            return headers
        login, password = given
        known = self._passwords.get(_normalise(password))
        if login == self._username and known is not None:
            secret = self._site.secret if known[1] is None else "revoked " + _normalise(password)[:8]
            headers["authorization"] = _basic_header(self._site.user, secret)
        else:
            headers["authorization"] = str(request.header("authorization"))
        return headers

    def _observe(self, request: Request, method: str, answer: httpx.Response, label: str | None) -> None:
        try:
            body = answer.json()
        except ValueError:
            return
        path = request.path.removeprefix(self.root) if request.path.startswith(self.root) else (request.arg("rest_route") or "")
        if path.rstrip("/") == "/rankmath/v1/updateMeta":
            self._note_seo(request, label)
            return
        if method == "DELETE" and isinstance(body, dict) and body.get("deleted") is True:
            previous = body.get("previous")
            if isinstance(previous, dict) and "id" in previous:
                seen = self._note(str(previous.get("type") or "post"), previous, by=label, action="delete")
                seen.deleted_at = self._clock.now()
            return
        if isinstance(body, dict) and isinstance(body.get("id"), int) and body.get("type") in _TYPES:
            created = method == "POST" and answer.status_code == 201  # WordPress answers a create (an upload) 201
            action = ("upload" if body["type"] == "attachment" else "create") if created else \
                ("trash" if method == "DELETE" else "update")
            self._note(str(body["type"]), body, by=label, action=action, request=request if created else None)

    def _note(self, type_: str, record: Mapping[str, Any], *, by: str | None, action: str,
              request: Request | None = None, made: bool = False) -> Seen:
        """The site's answer about one item; ``request``: the create (the upload) that made it in this run
        (``made``: one the harness made for the site's people)."""
        key = (type_, int(record["id"]))
        now = self._clock.now()
        seen = self._items.get(key)
        if seen is None:
            seen = self._items[key] = Seen(key[1], type_, dict(record))
        seen.own = True
        if (request is not None or made) and seen.created_at is None:  # made by this run: the only items it deletes
            seen.created_at, seen.created_by = now, by
            if type_ == "attachment" and request is not None:
                from durable_harness.fakes.wordpress._intent import _upload_digest

                seen.upload_sha256 = _upload_digest(request)
        seen.record = dict(record)
        seen.rank_math.update(rank_math_of(record))
        seen.events.append(event(type_, record, by, action, now))
        return seen

    def _note_seo(self, request: Request, label: str | None) -> None:
        from durable_harness.fakes.wordpress._errors import WPError
        from durable_harness.fakes.wordpress._params import request_params

        try:
            params = request_params(request)  # as WordPress reads them: JSON body, form body, query
        except WPError:
            return
        object_id, meta = params.get("objectID"), params.get("meta")
        if not isinstance(meta, dict):
            return
        try:
            item_id = int(str(object_id))
        except ValueError:
            return
        seen = self.get(item_id)
        if seen is None:
            return
        seen.own = True
        for key, value in meta.items():
            if str(key).startswith("rank_math_"):
                if value in ("", None):
                    seen.rank_math.pop(str(key), None)
                else:
                    seen.rank_math[str(key)] = str(value)
        seen.events.append({"at": self._clock.now(), "by": label, "action": "seo", "status": seen.record.get("status"),
                            "content_sha256": hashlib.sha256(seen.content.encode("utf-8")).hexdigest()})

    def _site_offset(self) -> _dt.timedelta:
        """The site's own time (its HTTP ``Date``, read once) less the run's: what ``earlier`` and ``later``
        mean on the site."""
        if self._offset is None:
            answer = self._harness_call("read of its time", "HEAD", "/wp-json/", (200,))
            try:
                site_now = email.utils.parsedate_to_datetime(answer.headers["date"])
            except (KeyError, TypeError, ValueError):
                raise HarnessError(f"the real WordPress at {self._origin} says no Date: a busy site's dates are "
                                   "set from the site's own time") from None
            self._offset = site_now - self._clock.datetime()
        return self._offset

    def _call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return self._http.request(method, path, auth=self._admin, headers={"accept-encoding": "identity"}, **kwargs)

    def _harness_call(self, what: str, method: str, path: str, ok: tuple[int, ...], **kwargs: Any) -> httpx.Response:
        """A request of the harness's own (``what`` it is, for the error): any answer but ``ok`` (and 404, which
        the caller reads) is the harness's error, never the candidate's."""
        try:
            answer = self._call(method, path, **kwargs)
        except httpx.HTTPError as err:
            raise HarnessError(f"the real WordPress at {self._origin} did not answer the harness's {what}: "
                               f"{type(err).__name__}") from err
        if answer.status_code not in ok and answer.status_code not in (404, 410):
            raise HarnessError(f"the real WordPress at {self._origin} answered the harness's {what} with HTTP "
                               f"{answer.status_code} {answer.text[:200]!r} (are DH_WORDPRESS_USER and "
                               "DH_WORDPRESS_APP_PASSWORD an editor's?)")
        return answer

    def _read(self, type_: str, item_id: int) -> dict[str, Any] | None:
        answer = self._harness_call(f"read of {type_} {item_id}", "GET",
                                    f"/wp-json/wp/v2/{_TYPES.get(type_, 'posts')}/{item_id}", (200,),
                                    params={"context": "edit"})
        if answer.status_code != 200:
            return None
        record = answer.json()
        return record if isinstance(record, dict) else None

    def _search(self, job_id: str) -> list[dict[str, Any]]:
        answer = self._harness_call(f"search for {job_id!r}", "GET", "/wp-json/wp/v2/posts", (200,), params={
            "search": job_id, "status": "any", "context": "edit", "per_page": "100"})
        found = answer.json() if answer.status_code == 200 else []
        marker = f"job={job_id} "
        return [r for r in found if isinstance(r, dict) and marker in raw(r.get("content"))] \
            if isinstance(found, list) else []

    def _to_gate(self, body: bytes) -> bytes:
        gate = f"http://{self.host}"
        escaped_base, escaped_gate = self._base.replace("/", "\\/"), gate.replace("/", "\\/")
        return body.replace(self._base.encode(), gate.encode()).replace(escaped_base.encode(), escaped_gate.encode())

    def _to_gate_text(self, text: str) -> str:
        return text.replace(self._base, f"http://{self.host}")


def _target(request: Request) -> str:
    query = urlencode(list(request.query), doseq=True)
    return request.path + (f"?{query}" if query else "")


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _is_text(content_type: str) -> bool:
    return content_type.startswith(("application/json", "text/", "application/javascript"))


def _normalise(password: str) -> str:
    return "".join(password.split())


def _basic(header: str | None) -> tuple[str, str] | None:
    if not header or not header.lower().startswith("basic "):
        return None
    try:
        login, _, password = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return login, password


def _basic_header(user: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{secret}".encode()).decode()
