"""A sessions API by URL behind the gate (``--service openai=URL``): the gate's ``Service`` for it.

The candidate talks to the gate as it does to the fake (``http://openai.dh.test/v1`` and an API key
the harness minted); each request is forwarded to the upstream with the harness's own key
(``DH_OPENAI_API_KEY``), and its answer comes back as it is: an event stream passes event by event
(the gate's tap records each, and its faults cut or repeat them), read by a thread of its own so
that the world goes on while the upstream's agent thinks. Faults fire at the gate as against the
fake. Once an operator revoked the minted key, requests go upstream with a wrong key, so that the
upstream refuses them as it refuses a revoked one.

Ground truth is what the upstream holds, read with the harness's key, in the fake's shape (the
checkers read it unchanged):

* ``sessions``: every session of the run's jobs (those the gate saw and those a listing by their
  ``job_id`` metadata shows, each read by its id once the run is over, ``settle``), with its
  status, turns and the user messages it was given;
* ``tool_calls``: every function call in their items, with whether and how it was answered; the
  job, version and business role of each come from the session's metadata and from the call
  itself (``Workload.call_truth``: an upload's image number and bytes, a draft's watermark);
* ``payloads`` and ``watermarks``: what those calls carried.

The record of it all is ``_upstream_sessions_record.SessionsRecord``; this module reads and forwards.

When each call was issued and answered is the run's time at which the gate first saw it (in an
answer, a stream's event, or the candidate's tool result); one the gate never saw counts as issued
when the run was settled. At the end, the run's sessions are deleted upstream (``--keep`` leaves
them), each by its id.

Trigger conditions (``agent_working``, ``tool_call_pending``) are read live from the upstream, each
session the gate saw by its id.

What it deliberately does not do: script the agent (the upstream's agent is its own), deliver
webhooks (the upstream does, to whatever it was told), or stand for the sandbox of a hosted
environment (a workload whose truth needs those is not applicable, ``_applicability``).
"""

from __future__ import annotations

import collections
import json
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import urlencode

import httpx

from durable_harness.harness.services._upstream import Upstream
from durable_harness.harness.services._upstream_sessions_record import CallTruth, SessionsRecord, session_of
from durable_harness.wire import Request, Response

__all__ = ["UpstreamOpenAI"]

_TIMEOUT_S = 30.0
_POLL_S = 0.5  # scenario seconds a stream's reader waits at most between two looks at its queue
_LIVE_S = 0.2  # scenario seconds a live read of the sessions stands for the conditions
_PAGE = 100
_DROP_REQUEST = {"host", "content-length", "authorization", "connection", "accept-encoding", "transfer-encoding",
                 "keep-alive", "te", "upgrade", "proxy-authorization"}
_DROP_RESPONSE = {"content-length", "connection", "transfer-encoding", "content-encoding", "keep-alive", "date"}
BETA = "agents=v1"  # the header the sessions API asks of every request (the SDK's client.beta.agents sends it)


class UpstreamOpenAI:
    """The gate's ``Service`` for a sessions API by URL, and its ground truth."""

    name = "openai"
    host = "openai.dh.test"
    root = "/v1"
    real = True

    def __init__(self, clock: Any, api: Upstream, *, api_key: str, jobs: Iterable[tuple[str, str]], call_truth: CallTruth,
                 keep: bool = False, transport: httpx.BaseTransport | None = None) -> None:
        self._clock = clock
        self._api = api
        self._keys: dict[str, list[Any]] = {api_key: ["api-key#1", False]}  # minted key -> [label, revoked]
        self.record = SessionsRecord(clock, jobs, call_truth)
        self._http = httpx.Client(timeout=_TIMEOUT_S, transport=transport, follow_redirects=False)
        self._streams = httpx.Client(timeout=httpx.Timeout(_TIMEOUT_S, read=None), transport=transport,
                                     follow_redirects=False)
        self._mutations = 0
        self._settled = False
        self._keep = keep
        self.cleaned: list[str] = []  # the sessions ``close`` deleted
        self._live_sessions: list[dict[str, Any]] = []  # the sessions as the upstream last said (``conditions``)
        self._live_at: float | None = None

    # -- the Service protocol ------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        path = request.path[len(self.root):] if request.path.startswith(self.root) else request.path
        query = urlencode(list(request.query), doseq=True)
        url = self._api.url + path + (f"?{query}" if query else "")
        headers = self._headers(request)
        if request.method == "GET" and path.rstrip("/").endswith("/events"):
            return self._stream(url, headers, session_of(path))
        try:
            answer = self._http.request(request.method, url, headers=headers, content=request.body or None)
        except httpx.HTTPError as err:
            return _unreachable(err)
        if request.method != "GET" and 200 <= answer.status_code < 300:
            self._mutations += 1
            self.record.note_input(path, request.body)
        self.record.observe_json(answer.headers.get("content-type", ""), answer.content, session_of(path))
        return Response(answer.status_code, _answer_headers(answer), answer.content)

    def mutations(self) -> int:
        return self._mutations

    def credential(self, request: Request) -> str | None:
        secret = _bearer(request.header("authorization"))
        if secret is None:
            return None
        known = self._keys.get(secret)
        if known is None:
            return "unknown-key"
        return f"{known[0]} (revoked)" if known[1] else str(known[0])

    # -- what the world and its people call ------------------------------------------------------
    def conditions(self) -> dict[str, Callable[[str | None], bool]]:
        """The sessions API's trigger conditions, read live from the upstream (each session of the
        run the gate saw, by id: a filtered listing may lag), at most once per ``_LIVE_S`` of the run:
        ``agent_working`` (a session is ``in_progress``) and ``tool_call_pending[:NAME]`` (a session
        requires a function call's result, of tool NAME)."""
        def working(_arg: str | None) -> bool:
            return any(s.get("status") == "in_progress" for s in self._live())

        def pending(tool: str | None) -> bool:
            return any(a.get("type") == "function_call" and (tool is None or a.get("name") == tool)
                       for s in self._live() for a in s.get("required_actions") or [] if isinstance(a, dict))

        return {"agent_working": working, "tool_call_pending": pending}

    def _live(self) -> list[dict[str, Any]]:
        now = self._clock.now()
        if self._live_at is not None and now - self._live_at < _LIVE_S:
            return self._live_sessions
        ids = self.record.session_ids()
        found = []
        for session_id in ids:
            try:
                answer = self._own("GET", f"{self._api.url}/agents/sessions/{session_id}",
                                        headers=self._harness_headers())
            except httpx.HTTPError:
                continue
            body = _json(answer) if answer.status_code == 200 else None
            if isinstance(body, dict):
                found.append(body)
        self._live_sessions, self._live_at = found, now
        return found

    def revoke_api_key(self, label: str | None = None) -> None:
        for known in self._keys.values():
            if label is None or known[0] == label:
                known[1] = True

    def webhook_outbox(self) -> list[Any]:
        return []  # the upstream delivers its webhooks itself, to whatever it was told

    def call_record(self, call_id: str) -> Mapping[str, Any] | None:
        return self.record.call_record(call_id)

    def payload_owner(self, sha256: str) -> Mapping[str, Any] | None:
        return self.record.payload_owner(sha256)

    def truth(self) -> dict[str, Any]:
        return self.record.truth()

    def settle(self) -> None:
        """Once, at the end: read every session of the run's jobs again, by its id, with its items and
        turns: those the gate saw, and those a listing by the jobs' metadata shows (a create whose
        answer the gate never saw). A listing may lag; a read by id does not."""
        if self._settled:
            return
        self._settled = True
        ids = set(self.record.session_ids())
        for job_id in self.record.job_ids:
            ids |= {str(s["id"]) for s in self._list("/agents/sessions", {"metadata[job_id]": job_id}) if "id" in s}
        for session_id in sorted(ids):
            answer = self._own("GET", f"{self._api.url}/agents/sessions/{session_id}", headers=self._harness_headers())
            if answer.status_code == 404:  # deleted (by the candidate)
                self.record.deleted(session_id)
                continue
            session = _json(answer) if answer.status_code == 200 else None
            if not isinstance(session, dict):
                raise _settle_error(f"/agents/sessions/{session_id}", answer)
            if (session.get("metadata") or {}).get("job_id") in self.record.job_ids:
                items = list(self._list(f"/agents/sessions/{session_id}/items", {"order": "asc"}))
                turns = list(self._list(f"/agents/sessions/{session_id}/turns", {"order": "asc"}))
                self.record.settled(session, items, turns)

    def _own(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        """One of the harness's own requests (a read, a deletion: each may be repeated), sent again once
        if the connection failed under it (a kept-alive connection the upstream had just closed)."""
        try:
            return self._http.request(method, url, **kwargs)
        except httpx.TransportError:
            return self._http.request(method, url, **kwargs)

    def _harness_headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self._api.secret}", "openai-beta": BETA}

    def close(self) -> None:
        """Delete the run's sessions upstream (unless kept), then close the clients."""
        try:
            if not self._keep:
                for session_id in self.record.session_ids():
                    try:
                        status: int | str = self._own("DELETE", f"{self._api.url}/agents/sessions/{session_id}",
                                                      headers=self._harness_headers()).status_code
                    except httpx.HTTPError as err:
                        status = type(err).__name__
                    if isinstance(status, int) and (status < 300 or status == 404):
                        self.cleaned.append(session_id)
                    else:  # said where whoever ran it reads, never silently left behind
                        print(f"durable-harness: could not delete session {session_id} from the sessions API at "
                              f"{self._api.url} ({status}): delete it by hand", file=sys.stderr)
        finally:
            self._http.close()
            self._streams.close()

    # -- forwarding ----------------------------------------------------------------------------
    def _headers(self, request: Request) -> dict[str, str]:
        headers = {k: v for k, v in request.headers.items() if k not in _DROP_REQUEST}
        headers["accept-encoding"] = "identity"
        secret = _bearer(request.header("authorization"))
        known = None if secret is None else self._keys.get(secret)
        if known is not None and secret is not None:
            headers["authorization"] = f"Bearer {self._api.secret if not known[1] else 'revoked-' + secret[-6:]}"
        elif request.header("authorization"):
            headers["authorization"] = str(request.header("authorization"))
        return headers

    def _stream(self, url: str, headers: Mapping[str, str], session_id: str | None) -> Response:
        try:
            answer = self._streams.send(self._streams.build_request("GET", url, headers=dict(headers)), stream=True)
        except httpx.HTTPError as err:
            return _unreachable(err)
        if answer.status_code >= 300 or "text/event-stream" not in answer.headers.get("content-type", ""):
            body = answer.read()
            answer.close()
            return Response(answer.status_code, _answer_headers(answer), body)
        return Response(answer.status_code, _answer_headers(answer), stream=lambda: self._relay(answer, session_id))

    def _relay(self, answer: httpx.Response, session_id: str | None) -> Iterator[bytes]:
        """The upstream's stream, chunk by chunk as it comes: a thread reads it, so that waiting for
        the next event releases the world (a clock wait) instead of holding it on a socket."""
        chunks: collections.deque[bytes | BaseException | None] = collections.deque()
        notify = getattr(getattr(self._clock, "lock", None), "notify", lambda: None)

        def read() -> None:
            try:
                for chunk in answer.iter_raw():
                    chunks.append(chunk)
                    notify()
                chunks.append(None)
            except BaseException as err:  # the upstream cut it, or the reader was closed
                chunks.append(err)
            notify()

        reader = threading.Thread(target=read, name="dh-upstream-stream", daemon=True)
        reader.start()
        buffer = b""
        try:
            while True:
                while not chunks:
                    self._clock.wait(_POLL_S)
                item = chunks.popleft()
                if item is None:
                    return
                if isinstance(item, BaseException):
                    raise httpx.RemoteProtocolError(f"the upstream's stream ended: {type(item).__name__}")
                buffer += item
                while b"\n\n" in buffer:
                    event, buffer = buffer.split(b"\n\n", 1)
                    self.record.observe_event(event, session_id)
                yield item
        finally:
            answer.close()

    # -- reading the upstream ------------------------------------------------------------------------
    def _list(self, path: str, params: Mapping[str, str]) -> Iterator[dict[str, Any]]:
        """Every object of a listing, page after page, with the harness's key."""
        after: str | None = None
        for _ in range(10_000):  # bounded by the listing's end
            query = {**params, "limit": str(_PAGE), **({"after": after} if after else {})}
            answer = self._own("GET", self._api.url + path, params=query,
                                    headers=self._harness_headers())
            if answer.status_code >= 300:
                raise _settle_error(path, answer)
            page = answer.json()
            data = [d for d in page.get("data", []) if isinstance(d, dict)]
            yield from data
            if not page.get("has_more") or not data:
                return
            after = str(page.get("last_id") or data[-1].get("id"))


def _settle_error(path: str, answer: httpx.Response) -> BaseException:
    from durable_harness.harness._errors import HarnessError

    return HarnessError(f"reading the sessions API's ground truth: GET {path} answered HTTP {answer.status_code}")


def _bearer(header: str | None) -> str | None:
    if not header or not header.lower().startswith("bearer "):
        return None
    return header[7:].strip() or None


def _answer_headers(answer: httpx.Response) -> dict[str, str]:
    return {k.lower(): v for k, v in answer.headers.items() if k.lower() not in _DROP_RESPONSE}


def _unreachable(err: Exception) -> Response:
    body = {"error": {"message": f"The sessions API did not answer: {type(err).__name__}.", "type": "server_error",
                      "code": "upstream_unreachable", "param": None}}
    return Response(502, {"content-type": "application/json"}, json.dumps(body).encode())


def _json(answer: httpx.Response) -> Any:
    try:
        return answer.json()
    except ValueError:
        return None
