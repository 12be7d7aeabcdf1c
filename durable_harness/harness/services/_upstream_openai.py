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

* ``sessions``: every session of the run's jobs (listed by their ``job_id`` metadata once the run
  is over, ``settle``), with its status, turns and the user messages it was given;
* ``tool_calls``: every function call in their items, with whether and how it was answered; the
  job, version and business role of each come from the session's metadata and from the call
  itself (``Workload.call_truth``: an upload's image number and bytes, a draft's watermark);
* ``payloads`` and ``watermarks``: what those calls carried.

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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

import httpx

from durable_harness.harness.services._upstream import Upstream
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
_CallTruth = Callable[[str, Mapping[str, Any]], Any]


class UpstreamOpenAI:
    """The gate's ``Service`` for a sessions API by URL, and its ground truth."""

    name = "openai"
    host = "openai.dh.test"
    root = "/v1"
    real = True

    def __init__(self, clock: Any, api: Upstream, *, api_key: str, jobs: Iterable[tuple[str, str]], call_truth: _CallTruth,
                 keep: bool = False, transport: httpx.BaseTransport | None = None) -> None:
        self._clock = clock
        self._api = api
        self._keys: dict[str, list[Any]] = {api_key: ["api-key#1", False]}  # minted key -> [label, revoked]
        self._jobs = tuple(sorted(set(jobs)))  # (job_id, task_version) of every version the run knows
        self._job_ids = tuple(sorted({job_id for job_id, _ in self._jobs}))
        self._call_truth = call_truth
        self._http = httpx.Client(timeout=_TIMEOUT_S, transport=transport, follow_redirects=False)
        self._streams = httpx.Client(timeout=httpx.Timeout(_TIMEOUT_S, read=None), transport=transport,
                                     follow_redirects=False)
        self._lock = threading.Lock()  # the stream readers' threads record what they saw too
        self._sessions: dict[str, dict[str, Any]] = {}
        self._calls: dict[str, dict[str, Any]] = {}
        self._answered_s: dict[str, float] = {}  # call id -> the run's time its result reached the gate
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
            return self._stream(url, headers, _session_of(path))
        try:
            answer = self._http.request(request.method, url, headers=headers, content=request.body or None)
        except httpx.HTTPError as err:
            return _unreachable(err)
        if request.method != "GET" and 200 <= answer.status_code < 300:
            self._mutations += 1
            self._note_input(path, request)
        self._observe_body(answer, _session_of(path))
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
        with self._lock:
            ids = sorted(self._sessions)
        found = []
        for session_id in ids:
            try:
                answer = self._http.get(f"{self._api.url}/agents/sessions/{session_id}",
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
        with self._lock:
            call = self._calls.get(call_id)
            return None if call is None else self._record(call)

    def payload_owner(self, sha256: str) -> Mapping[str, Any] | None:
        with self._lock:
            return self._owners()[0].get(sha256)

    def truth(self) -> dict[str, Any]:
        with self._lock:
            calls = sorted(self._calls.values(), key=lambda c: (float(c["issued_at"]), str(c["call_id"])))
            payloads, watermarks = self._owners()
            return {
                "sessions": [dict(s) for _, s in sorted(self._sessions.items())],
                "payloads": dict(sorted(payloads.items())),
                "watermarks": dict(sorted(watermarks.items())),
                "tool_calls": [self._record(c) for c in calls],
                "webhooks": [], "subagents": [], "environments": [], "artifacts": [], "executor": {},
            }

    def settle(self) -> None:
        """Once, at the end: read every session of the run's jobs again, by its id, with its items and
        turns: those the gate saw, and those a listing by the jobs' metadata shows (a create whose
        answer the gate never saw). A listing may lag; a read by id does not."""
        if self._settled:
            return
        self._settled = True
        ids = set(self._sessions)
        for job_id in self._job_ids:
            ids |= {str(s["id"]) for s in self._list("/agents/sessions", {"metadata[job_id]": job_id}) if "id" in s}
        for session_id in sorted(ids):
            answer = self._http.get(f"{self._api.url}/agents/sessions/{session_id}", headers=self._harness_headers())
            if answer.status_code == 404:  # deleted (by the candidate): it stays in the record, as deleted
                with self._lock:
                    if session_id in self._sessions:
                        self._sessions[session_id]["deleted"] = True
                continue
            session = _json(answer) if answer.status_code == 200 else None
            if not isinstance(session, dict):
                raise _settle_error(f"/agents/sessions/{session_id}", answer)
            if (session.get("metadata") or {}).get("job_id") in self._job_ids:
                self._settle_session(session)

    def _harness_headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self._api.secret}", "openai-beta": BETA}

    def close(self) -> None:
        """Delete the run's sessions upstream (unless kept), then close the clients."""
        try:
            if not self._keep:
                for session_id in sorted(self._sessions):
                    try:
                        status: int | str = self._http.delete(
                            f"{self._api.url}/agents/sessions/{session_id}",
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
                    self._observe_event(event, session_id)
                yield item
        finally:
            answer.close()

    # -- observing -------------------------------------------------------------------------------
    def _observe_body(self, answer: httpx.Response, session_id: str | None) -> None:
        if not answer.headers.get("content-type", "").startswith("application/json"):
            return
        try:
            value = answer.json()
        except ValueError:
            return
        self._observe_value(value, session_id)

    def _observe_value(self, value: Any, session_id: str | None) -> None:
        """Every session and function call in an answer (a session, a page of items, a listing),
        each call of the session it was read from."""
        if isinstance(value, list):
            for v in value:
                self._observe_value(v, session_id)
            return
        if not isinstance(value, dict):
            return
        if value.get("object") == "agent.session" and isinstance(value.get("id"), str):
            self._note_session(value)
            session_id = str(value["id"])
        if isinstance(value.get("session_id"), str):
            session_id = str(value["session_id"])
        if value.get("type") == "function_call" and isinstance(value.get("call_id"), str):
            self._note_call(value, session_id)
        for key in ("data", "required_actions", "item", "session"):
            if key in value:
                self._observe_value(value[key], session_id)

    def _observe_event(self, event: bytes, session_id: str | None) -> None:
        data = b"".join(line[5:].strip() for line in event.splitlines() if line.startswith(b"data:"))
        if not data:
            return
        try:
            value = json.loads(data)
        except ValueError:
            return
        self._observe_value(value, session_id)

    def _note_session(self, session: Mapping[str, Any], *, turns: Sequence[Mapping[str, Any]] | None = None,
                      user_inputs: list[str] | None = None) -> None:
        raw = session.get("metadata")
        metadata: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
        with self._lock:
            record = self._sessions.setdefault(str(session["id"]), {
                "id": str(session["id"]), "metadata": dict(sorted(metadata.items())), "status": session.get("status"),
                "deleted": False, "created_at": self._clock.now(), "turns": 0, "last_turn_status": None,
                "user_inputs": []})
            record["status"] = session.get("status", record["status"])
            if turns is not None:
                record["turns"] = len(turns)
                record["last_turn_status"] = turns[-1].get("status") if turns else None
            if user_inputs is not None:
                record["user_inputs"] = list(user_inputs)

    def _note_call(self, item: Mapping[str, Any], session_id: str | None) -> None:
        call_id = str(item["call_id"])
        with self._lock:
            known = self._calls.get(call_id)
            if known is not None:
                if session_id and not known["session_id"]:
                    known["session_id"] = session_id
                return
            name = str(item.get("name") or "")
            arguments = item.get("arguments")
            if isinstance(arguments, str):
                try:
                    arguments = json.loads(arguments)
                except ValueError:
                    arguments = {}
            found = self._call_truth(name, arguments if isinstance(arguments, dict) else {})
            self._calls[call_id] = {
                "session_id": session_id or "", "turn_id": str(item.get("turn_id") or ""), "call_id": call_id,
                "name": name, "role": str(getattr(found, "role", "") or ""), "issued_at": self._clock.now(),
                "answered": False, "success": None, "answered_at": None,
                "payload_sha256": tuple(getattr(found, "payload_sha256", ()) or ()),
                "watermarks": tuple(getattr(found, "watermarks", ()) or ())}

    def _record(self, call: Mapping[str, Any]) -> dict[str, Any]:
        """A call as ground truth shows it: with its job and version, from its session's metadata."""
        job_id, version = self._job_of(str(call["session_id"]))
        return {k: v for k, v in call.items() if k not in ("payload_sha256", "watermarks")} | {
            "job_id": job_id, "task_version": version}

    def _job_of(self, session_id: str) -> tuple[str, str]:
        metadata = (self._sessions.get(session_id) or {}).get("metadata") or {}
        if not metadata and len(self._jobs) == 1:  # a call seen before its session: the run's one job
            return self._jobs[0]
        return str(metadata.get("job_id", "")), str(metadata.get("task_version", ""))

    def _owners(self) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, str]]]:
        """Whose payload each digest is, whose watermark each mark is: the first call that carried it."""
        payloads: dict[str, dict[str, Any]] = {}
        watermarks: dict[str, dict[str, str]] = {}
        for call in sorted(self._calls.values(), key=lambda c: (float(c["issued_at"]), str(c["call_id"]))):
            record = self._record(call)
            provenance = {"job_id": record["job_id"], "task_version": record["task_version"], "role": record["role"]}
            for digest in call["payload_sha256"]:
                payloads.setdefault(str(digest), dict(provenance))
            for mark in call["watermarks"]:
                watermarks.setdefault(str(mark), dict(provenance))
        return payloads, watermarks

    def _note_input(self, path: str, request: Request) -> None:
        """The candidate's input events that the upstream took: tool results, as they reached the gate."""
        if not path.rstrip("/").endswith("/events"):
            return
        try:
            body = json.loads(request.body or b"{}")
        except ValueError:
            return
        events = body.get("events") if isinstance(body, dict) else None
        for event in events if isinstance(events, list) else []:
            if isinstance(event, dict) and event.get("type") == "agent.session.input.tool_result":
                call_id = str(event.get("call_id"))
                with self._lock:
                    self._answered_s.setdefault(call_id, self._clock.now())

    # -- settling --------------------------------------------------------------------------------
    def _settle_session(self, session: Mapping[str, Any]) -> None:
        session_id = str(session["id"])
        items = list(self._list(f"/agents/sessions/{session_id}/items", {"order": "asc"}))
        turns = list(self._list(f"/agents/sessions/{session_id}/turns", {"order": "asc"}))
        inputs = [_text(i) for i in items if i.get("type") == "message" and i.get("role") == "user"]
        self._note_session(session, turns=turns, user_inputs=[t for t in inputs if t is not None])
        for item in items:
            if item.get("type") == "function_call" and isinstance(item.get("call_id"), str):
                self._note_call(item, session_id)
        now = self._clock.now()
        with self._lock:
            for item in items:
                if item.get("type") != "function_call_output":
                    continue
                record = self._calls.get(str(item.get("call_id")))
                if record is None:
                    continue
                record["answered"] = True
                record["success"] = item.get("status") == "completed"
                record["answered_at"] = self._answered_s.get(record["call_id"], now)

    def _list(self, path: str, params: Mapping[str, str]) -> Iterator[dict[str, Any]]:
        """Every object of a listing, page after page, with the harness's key."""
        after: str | None = None
        for _ in range(10_000):  # bounded by the listing's end
            query = {**params, "limit": str(_PAGE), **({"after": after} if after else {})}
            answer = self._http.get(self._api.url + path, params=query,
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


def _text(item: Mapping[str, Any]) -> str | None:
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict)) or None
    return None


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


def _session_of(path: str) -> str | None:
    """The session a path below ``/agents/sessions/{id}`` is about, if any."""
    parts = [p for p in path.split("/") if p]
    return parts[2] if len(parts) >= 3 and parts[:2] == ["agents", "sessions"] else None


def _json(answer: httpx.Response) -> Any:
    try:
        return answer.json()
    except ValueError:
        return None
