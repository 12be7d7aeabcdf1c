"""The gate: the only I/O seam between the candidate and the simulated world.

In-process the gate is an ``httpx`` transport that dispatches each request to the fake of its
host (a host no service has is refused as a mock router refuses it: ``AllMockedAssertionError``).
Every request is recorded in the history as an operation (``invoke`` then ``ok``/``fail``/``info``),
the nemesis's armed faults are asked whether they fire, and every firing is reported to the nemesis
with its evidence (did the fake commit? what did it say?).

Everything the harness runs inside a request (the fake, the faults, the effects, the stream of a
response) is guarded: an exception there is the harness's, not the candidate's. The operation is
completed as ``info`` with the error recorded, and a ``HarnessError`` (a ``BaseException``) goes up
through the candidate's code; the gate keeps it in ``failure`` so the run stops with exit code 3
even if the candidate swallowed it.

What it deliberately does not do: decide what a fault means for the candidate (the faults do),
or judge anything (checkers do). Secrets never enter the history: credentials are recorded by
the label the service gives them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar
from urllib.parse import unquote

import httpx
from respx.models import AllMockedAssertionError

from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._errors import HarnessError
from durable_harness.harness._history import History
from durable_harness.harness._nemesis import Nemesis
from durable_harness.harness._service_protocol import Service
from durable_harness.harness.candidate._protocol import CandidateCrashed, CandidateRunaway
from durable_harness.harness.faults import (
    Action, Crash, Cut, Drop, Duplicate, Effect, FaultContext, Hold, Lose, RequestFault, Respond, Rewrite,
)
from durable_harness.wire import Request, Response

__all__ = ["Gate", "Service"]

_MAX_RECORDED_STR = 200
# A JSON string token (or, where the scan starts at a closing quote, the text up to the next quote:
# the check errs only towards walking the value) of more than _MAX_RECORDED_STR characters.
_LONG_STRING = re.compile(r'"(?:[^"\\]|\\.){%d,}"' % (_MAX_RECORDED_STR + 1), re.DOTALL)
MAX_REQUESTS_PER_STEP = 2000
MAX_RETRY_AFTER_S = 600.0  # a Retry-After the run waits out before it ends, at most
T = TypeVar("T")

ErrorResponse = Callable[[int, Mapping[str, str]], Response]


class Gate:
    def __init__(self, clock: VirtualClock, history: History, services: Sequence[Service],
                 nemesis: Nemesis | Sequence[RequestFault] = (),
                 error_responses: Mapping[str, ErrorResponse] | None = None) -> None:
        self.clock = clock
        self.history = history
        self.services = {s.host: s for s in services}
        self.nemesis = nemesis if isinstance(nemesis, Nemesis) else Nemesis(clock, history, nemesis)
        self.requests = 0
        self.error_responses = dict(error_responses or {})  # by service name
        self.max_requests_per_step = MAX_REQUESTS_PER_STEP
        self.failure: HarnessError | None = None
        self._step_requests = 0
        # What the world does while a request of the candidate is on its way (webhooks during a
        # step); never re-entered by the requests that it makes happen.
        self.during: Callable[[], None] | None = None
        self._during_active = False
        # A pause of the worker that made a request (``Hold``): the run's workers set it (process,
        # for_s, kill, op) -> evidence; it runs the other workers for the pause's length.
        self.hold: Callable[[str, float, bool, int], Mapping[str, Any]] | None = None
        # A sweep's clean run forks a crash point here (``_sweep_fork``): at every request before
        # the heal, after the people acted and before the faults look at it.
        self.at_request: Callable[[FaultContext], None] | None = None
        # What a request does to the world (service, route, request) -> its target names; the World
        # sets it. Asked only when an armed trigger names a target.
        self.classify: Callable[[str, str, Request], frozenset[str]] | None = None
        self.retry_after_until = 0.0  # the run's time until which the world asked the candidate to wait

    @property
    def faults(self) -> list[RequestFault]:
        return self.nemesis.faults

    def begin_step(self) -> None:
        """A new step of the candidate: its request budget starts again."""
        self._step_requests = 0

    def heal(self) -> None:
        """Lift every fault: from now on requests are delivered as they are."""
        self.nemesis.heal()

    def transport(self, process: str) -> httpx.BaseTransport:
        """An httpx transport for one actor (``process`` names it in the history)."""
        services = self.services

        def handle(request: httpx.Request) -> httpx.Response:
            if request.url.host not in services:
                raise AllMockedAssertionError(f"RESPX: {request!r} not mocked!")
            response = self.dispatch(process, request)
            if isinstance(response.stream, httpx.ByteStream):
                response.read()
            return response

        return httpx.MockTransport(handle)

    # -- guarding the harness's own code ---------------------------------------------------
    def _guard(self, where: str, op: int | None, fn: Callable[..., T], *args: Any) -> T:
        """Run harness code inside a request; its failure is a HarnessError, never the candidate's."""
        try:
            return fn(*args)
        except HarnessError as err:
            if err is not self.failure:
                self.fail(err, op)
            raise
        except CandidateCrashed:
            raise
        except Exception as err:
            raise self.fail(HarnessError.wrap(where, err), op) from err

    def fail(self, error: HarnessError, op: int | None = None) -> HarnessError:
        """Record a harness error (completing ``op`` as info) and keep the first one."""
        data = {"error": f"internal error of the harness: {error.message}", "harness_error": error.message}
        if op is not None and self.history.is_open(op):
            self.history.complete(self.clock.now(), op, "info", data)
        self.history.append(self.clock.now(), "note", "harness", {"harness_error": error.message})
        if self.failure is None:
            self.failure = error
        return error

    def meanwhile(self) -> None:
        """Let the world do what it does while the candidate is busy (``during``: deliver webhooks),
        at a point inside a step: before a request is served, before its answer is returned, between
        the events of a stream, after a sleep. Never re-entered by what it makes happen."""
        if self.during is None or self._during_active:
            return
        self._during_active = True
        try:
            self._guard("delivering webhooks during a step", None, self.during)
        finally:
            self._during_active = False
        if self.failure is not None:
            raise self.failure

    def _classify(self, service: str, route: str, request: Request, op: int) -> frozenset[str]:
        if self.classify is None:
            return frozenset()
        return self._guard(f"naming what a {service} request does", op, self.classify, service, route, request)

    # -- dispatch ------------------------------------------------------------------------
    def dispatch(self, process: str, raw: httpx.Request) -> httpx.Response:
        """``exchange`` for an httpx request (the in-process transport, the loopback servers)."""
        return _to_httpx(self.exchange(process, raw.url.host, lambda sent_s: _read(raw, sent_s), raw), raw)

    def exchange(self, process: str, host: str, read: Callable[[float], Request],
                 raw: httpx.Request | None = None) -> Response:
        """One request of ``process`` to the service at ``host`` (one the gate has): ``read(sent_s)``
        makes it, as it was when sent; its answer (a stream's events are recorded as the sender reads
        them), or the transport error a fault made (naming ``raw``, the httpx request, when there is
        one). A candidate in its own process sends its request as data, which this takes as it is."""
        if self.failure is not None:  # the world is broken: nothing more happens in it
            raise self.failure
        self._step_requests += 1
        if self._step_requests > self.max_requests_per_step:  # a runaway loop: stop it like a crash
            why = f"made more than {self.max_requests_per_step} requests in one step (a runaway loop)"
            self.history.append(self.clock.now(), "crash", process, {"because": why})
            raise CandidateRunaway(f"{process}: {why}")
        self._guard("a timer of the world", None, self.clock.run_due)
        self.meanwhile()
        service = self.services[host]
        sent_s = self.clock.now()  # reading and recording the request take no scenario time
        request = self._guard("reading the request", None, read, sent_s)
        route = request.path[len(service.root):] if request.path.startswith(service.root) else request.path
        self.requests += 1
        op = self.history.invoke(sent_s, process, self._guard("recording the request", None,
                                                              _describe, service, route, request))
        # People act while this request is on its way: it was sent before anything they do now.
        self._guard("an action of the world", op, self.nemesis.tick)
        ctx = FaultContext(service=service.name, route=route, request=request, process=process, op=op,
                           condition=self.nemesis.condition, error_response=self.error_responses.get(service.name),
                           now_s=self.clock.now(), now_unix=self.clock.unix(),
                           classify=lambda: self._classify(service.name, route, request, op),
                           read_again=lambda again: _read_only(service, again))
        if self.at_request is not None and not self.nemesis.healed:
            self._guard("forking a crash point of the sweep", op, self.at_request, ctx)
        armed = self.nemesis.armed()
        for fault in armed:
            self._guard(f"fault {fault.kind!r}", op, fault.observe, ctx)

        dead_sender = False
        for fault in armed:
            action = self._guard(f"fault {fault.kind!r}", op, fault.before, ctx)
            if isinstance(action, Effect):
                self._guard(f"the effect of {fault.kind!r}", op, self.nemesis.apply, fault, action, op, process)
            elif isinstance(action, Hold):
                self._hold(fault, action, ctx, delivered=False)
                dead_sender = dead_sender or action.kill
            elif action is not None:
                return self._act_before(fault, action, ctx, raw)

        before = self._guard(f"the {service.name} fake", op, service.mutations)
        response = self._guard(f"the {service.name} fake", op, service.handle, request)
        ctx.response = response
        ctx.committed = self._guard(f"the {service.name} fake", op, service.mutations) != before
        for fault in armed:
            action = self._guard(f"fault {fault.kind!r}", op, fault.after, ctx)
            if isinstance(action, Effect):  # while the operation is in flight: committed, not yet answered
                self._guard(f"the effect of {fault.kind!r}", op, self.nemesis.apply, fault, action, op, process)
            elif isinstance(action, Hold):  # its answer held while the worker is paused
                self._hold(fault, action, ctx, delivered=True)
                dead_sender = dead_sender or action.kill
            elif action is not None:
                return self._act_after(fault, action, ctx, raw)
        if dead_sender:  # the sender died while its request or its answer was held: no one reads this
            self._crash(ctx, "killed while paused; the request went on without it")
        self._complete(op, response, ctx.committed)
        self.meanwhile()  # the request did its work; its answer is not back yet
        if response.stream is not None:
            stream_actions = []
            for fault in armed:
                action = self._guard(f"fault {fault.kind!r}", None, fault.stream, ctx)
                if action is not None:
                    stream_actions.append((fault, action))
            response = Response(response.status, response.headers, response.body,
                                 stream=self._tap(ctx, response, stream_actions))
        return response

    def _tap(self, ctx: FaultContext, response: Response,
             actions: list[tuple[RequestFault, Action]]) -> Callable[[], Iterator[bytes]]:
        """The stream as the candidate reads it, one SSE event at a time: each event is recorded;
        stream faults cut it after event k or deliver event k twice. Comments pass unrecorded."""
        source = response.stream
        assert source is not None
        cut = next(((f, a) for f, a in actions if isinstance(a, Cut)), None)
        dups = [(f, a) for f, a in actions if isinstance(a, Duplicate)]

        def tapped() -> Iterator[bytes]:
            delivered, buffer = 0, b""
            for chunk in self._guarded_stream(ctx, source):
                buffer += chunk
                while (end := _event_end(buffer)) >= 0:
                    event, buffer = buffer[:end], buffer[end:]
                    meta = _event_meta(event)
                    if meta is None:  # a comment (keepalive) or an empty event
                        yield event
                        continue
                    if cut is not None and delivered >= cut[1].after_events:
                        yield from self._cut_here(cut[0], cut[1], ctx, delivered, event)
                        return
                    delivered += 1
                    self.history.append(self.clock.now(), "event", ctx.process, {"op": ctx.op, "n": delivered, **meta})
                    yield event
                    self.meanwhile()
                    for fault, dup in dups:
                        if delivered in dup.events:
                            self._record_fault(fault, ctx, {"duplicated_event": delivered, **meta})
                            self.history.append(self.clock.now(), "event", ctx.process,
                                                {"op": ctx.op, "n": delivered, "duplicate": True, **meta})
                            yield event

        return tapped

    def _guarded_stream(self, ctx: FaultContext, source: Callable[[], Iterator[bytes]]) -> Iterator[bytes]:
        """The fake's stream, chunk by chunk; its failure is the harness's."""
        where = f"the {ctx.service} fake's event stream"
        chunks = self._guard(where, None, source)
        while True:
            if self.failure is not None:
                raise self.failure
            try:
                chunk = next(chunks)
            except StopIteration:
                return
            except (HarnessError, CandidateCrashed):
                raise
            except Exception as err:
                raise self.fail(HarnessError.wrap(where, err)) from err
            yield chunk

    def _cut_here(self, fault: RequestFault, cut: Cut, ctx: FaultContext, delivered: int, event: bytes) -> Iterator[bytes]:
        self._record_fault(fault, ctx, {"events_delivered": delivered, "mode": cut.mode})
        if cut.mode == "error":  # the server says the stream failed, in an event of its own, and ends it
            self.history.append(self.clock.now(), "event", ctx.process,
                                {"op": ctx.op, "n": delivered + 1, "type": "error", "injected": True})
            yield _STREAM_ERROR
            return
        if cut.mode == "reset":
            yield event[: len(event) // 2]  # a truncated event, then the connection dies
            raise httpx.RemoteProtocolError("peer closed connection without sending complete message body (injected)")

    def _hold(self, fault: RequestFault, action: Hold, ctx: FaultContext, *, delivered: bool) -> None:
        """Pause the worker of this request (``Hold``) while the others run; the request then goes on."""
        if self.hold is None:
            raise self.fail(HarnessError(f"fault {fault.kind!r} pauses a worker, but this run has one worker"), ctx.op)
        self._record_fault(fault, ctx, {"delivered": delivered, "committed": ctx.committed, "paused": ctx.process,
                                        "kill": action.kill})
        self._guard("pausing a worker", ctx.op, self.hold, ctx.process, action.for_s, action.kill, ctx.op)
        if self.failure is not None:
            raise self.failure

    def _act_before(self, fault: RequestFault, action: Action, ctx: FaultContext,
                    raw: httpx.Request | None) -> Response:
        if isinstance(action, Respond):
            self._record_fault(fault, ctx, {"delivered": False, "status": action.response.status})
            self._complete(ctx.op, action.response, committed=False)
            return action.response
        if isinstance(action, Drop):
            self._record_fault(fault, ctx, {"delivered": False, "error": action.kind})
            self.history.complete(self.clock.now(), ctx.op, "fail", {"error": f"connection {action.kind} before delivery", "committed": False})
            raise httpx.ConnectError(f"connection {action.kind} (injected)", request=raw)
        if isinstance(action, Crash):
            self._record_fault(fault, ctx, {"delivered": False})
            self._crash(ctx, "crashed before delivery")
        raise self.fail(HarnessError(f"fault {fault.kind!r} returned {action!r}, which cannot act before delivery"), ctx.op)

    def _act_after(self, fault: RequestFault, action: Action, ctx: FaultContext,
                   raw: httpx.Request | None) -> Response:
        assert ctx.response is not None
        evidence = {"delivered": True, "committed": ctx.committed, "status": ctx.response.status}
        if isinstance(action, Lose):
            self._record_fault(fault, ctx, {**evidence, "lost": action.kind})
            if action.kind == "timeout":
                self.clock.sleep(action.wait_s)
            self.history.complete(self.clock.now(), ctx.op, "info", {
                "error": f"response lost ({action.kind})", "committed": ctx.committed, "status": ctx.response.status,
                "body": _summarise_body(ctx.response.body, ctx.response.headers)})
            if action.kind == "timeout":
                raise httpx.ReadTimeout("timed out waiting for the response (injected)", request=raw)
            raise httpx.RemoteProtocolError("connection reset before the response (injected)", request=raw)
        if isinstance(action, Respond):
            self._record_fault(fault, ctx, {**evidence, "replaced_with": action.response.status})
            self._complete(ctx.op, action.response, ctx.committed, withheld=ctx.response)
            return action.response
        if isinstance(action, Rewrite):  # the client reads another answer than the service gave
            self._record_fault(fault, ctx, {**evidence, **action.evidence})
            self._complete(ctx.op, action.response, ctx.committed, withheld=ctx.response)
            return action.response
        if isinstance(action, Crash):
            self._record_fault(fault, ctx, evidence)
            self._crash(ctx, "crashed after the fake committed, before the response")
        raise self.fail(HarnessError(f"fault {fault.kind!r} returned {action!r}, which cannot act after delivery"), ctx.op)

    def _crash(self, ctx: FaultContext, why: str) -> None:
        data: dict[str, Any] = {"error": why, "committed": ctx.committed}
        if ctx.response is not None:
            data.update(status=ctx.response.status, body=_summarise_body(ctx.response.body, ctx.response.headers))
        self.history.complete(self.clock.now(), ctx.op, "info", data)
        self.history.append(self.clock.now(), "crash", ctx.process, {"op": ctx.op, "because": why})
        raise CandidateCrashed(f"{ctx.process}: {why} (op {ctx.op})")

    def _record_fault(self, fault: RequestFault, ctx: FaultContext, evidence: Mapping[str, Any]) -> None:
        self.nemesis.record(fault, ctx.op, ctx.process, evidence)

    def _note_retry_after(self, response: Response) -> None:
        """A ``Retry-After`` the world sent tells the candidate to stay away that long: the run does
        not end before it has passed (``retry_after_until``; at most ``MAX_RETRY_AFTER_S``)."""
        raw = next((v for k, v in response.headers.items() if k.lower() == "retry-after"), None)
        try:
            seconds = float(raw) if raw is not None else None
        except ValueError:
            seconds = None
        if seconds is not None and seconds > 0:
            until = self.clock.now() + min(seconds, MAX_RETRY_AFTER_S)
            self.retry_after_until = max(self.retry_after_until, until)

    def _complete(self, op: int, response: Response, committed: bool, *, withheld: Response | None = None) -> None:
        """The completion of ``op`` as the client got it; ``withheld``: the service's own answer, which
        a fault replaced after a commit (its status and the id it gave, so that a witness finds the
        request that made the effect)."""
        self._note_retry_after(response)
        type_ = "ok" if response.status < 400 else ("info" if response.status >= 500 or response.status == 408 else "fail")
        data: dict[str, Any] = {"status": response.status, "committed": committed,
                                "body": _summarise_body(response.body, response.headers)}
        if withheld is not None and committed:
            body = _summarise_body(withheld.body, withheld.headers)
            data["withheld"] = {"status": withheld.status,
                                **({"id": body["id"]} if isinstance(body, dict) and "id" in body else {})}
        self.history.complete(self.clock.now(), op, type_, data)


# An SSE ``error`` event, as the API ends a stream that failed on its side: the SDK raises
# ``openai.APIError`` with its message when it reads one (any event whose data has an ``error``).
_STREAM_ERROR = ("event: error\ndata: " + json.dumps({"type": "error", "error": {
    "type": "server_error", "code": "stream_failed", "param": None,
    "message": "The event stream failed on the server's side. Read the session to resume."}},
    separators=(",", ":")) + "\n\n").encode()


def _read_only(service: Any, request: Request) -> Response:
    """A fault's read of the service (``FaultContext.read_again``): a GET only, which changes nothing."""
    if request.method not in ("GET", "HEAD"):
        raise HarnessError(f"a fault asked the {service.name} service for {request.method} {request.path}: a fault "
                           "may only read again")
    response: Response = service.handle(request)
    return response


def _read(raw: httpx.Request, sent_s: float) -> Request:
    headers: dict[str, str] = {}
    for name, value in raw.headers.multi_items():  # as dict(raw.headers) has them: repeated names joined
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return Request.build(raw.method, raw.url.path, raw.url.query.decode("ascii", "replace"), headers, raw.read(),
                         sent_s=sent_s)


# A URL as httpx writes one (``str(request.url)``): scheme, a lower-case host (no IDNA label: httpx
# decodes those), a port, then visible ASCII only, with no dot segment in its path (httpx removes
# them). Where a URL sent as data is not of this shape, httpx reads it (``sent_request``).
_PLAIN_URL = re.compile(r"(https?)://((?![a-z0-9.-]*xn--)[a-z0-9.-]+)(?::[0-9]{1,5})?"
                        r"((?:/(?!\.\.?(?:/|\?|$))(?:(?![/?#])[!-~])*)*(?:\?[!-~]*)?)")


def sent_request(method: str, url: str, headers: Sequence[tuple[str, str]],
                 body: bytes) -> tuple[str, Callable[[float], Request]]:
    """A request sent as data (by a candidate in its own process): its host and its reader for
    ``Gate.exchange``, which gives what ``_read`` gives for ``httpx.Request(method, url,
    headers=headers, stream=ByteStream(body))``: the path unquoted, the query as sent, names
    lower-case, repeated names joined. A URL or a header that httpx would write otherwise (or
    refuse: ``ValueError``, ``httpx.InvalidURL``) is read by httpx."""
    plain = _PLAIN_URL.fullmatch(url)
    if plain is None or "#" in url or not all(k.isascii() and v.isascii() for k, v in headers):
        raw = httpx.Request(method, url, headers=list(headers), stream=httpx.ByteStream(body))
        return raw.url.host, lambda sent_s: _read(raw, sent_s)
    path, _, query = plain.group(3).partition("?")
    joined: dict[str, str] = {}
    for name, value in headers:
        name = name.lower()
        joined[name] = f"{joined[name]}, {value}" if name in joined else value
    return plain.group(2), lambda sent_s: Request.build(method, unquote(path or "/"), query, joined, body,
                                                        sent_s=sent_s)


def answer_headers(response: Response) -> list[list[str]]:
    """The headers a client reads of ``response`` as ``_to_httpx`` hands it over (httpx lower-cases
    the names, and gives a body that has none its ``content-length``)."""
    if not all(k.isascii() and v.isascii() for k, v in response.headers.items()):
        answer = httpx.Response(response.status, headers=dict(response.headers),
                                content=None if response.stream is not None else response.body)
        return [[k, v] for k, v in answer.headers.multi_items()]
    headers = [[k.lower(), v] for k, v in response.headers.items()]
    if response.stream is None and response.body and not any(k == "content-length" for k, _ in headers):
        headers.append(["content-length", str(len(response.body))])
    return headers


def _event_end(buffer: bytes) -> int:
    """Index just past the first complete SSE event in ``buffer`` (a blank line ends one), or -1."""
    ends = [i + len(sep) for sep in (b"\n\n", b"\r\n\r\n") if (i := buffer.find(sep)) >= 0]
    return min(ends) if ends else -1


def _event_meta(event: bytes) -> dict[str, Any] | None:
    """``type`` and ``event_id`` of one SSE event (None for a comment-only block)."""
    data = [line[5:].strip() for line in event.decode("utf-8", "replace").splitlines() if line.startswith("data:")]
    if not data:
        return None
    try:
        payload = json.loads("\n".join(data))
    except ValueError:
        return {"type": "?", "event_id": None}
    if not isinstance(payload, dict):
        return {"type": "?", "event_id": None}
    return {"type": payload.get("type"), "event_id": payload.get("event_id")}


def _describe(service: Service, route: str, request: Request) -> dict[str, Any]:
    data: dict[str, Any] = {"service": service.name, "method": request.method, "route": route}
    if request.query:
        data["query"] = [[k, v] for k, v in request.query]
    label = service.credential(request)
    if label is not None:
        data["credential"] = label
    key = request.header("idempotency-key")
    if key:
        data["idempotency_key"] = key
    if request.body and request.content_type == "multipart/form-data":
        # The boundary is random per client: record the parts, so histories stay comparable.
        fields, files = request.form()
        data["body"] = {"content_type": "multipart/form-data", "fields": _shorten(fields), "files": {
            name: {"filename": f[0], "content_type": f[1], "sha256": hashlib.sha256(f[2]).hexdigest(), "size": len(f[2])}
            for name, f in sorted(files.items())}}
    elif request.body:
        data["body"] = _summarise_body(request.body, request.headers)
    return data


def _summarise_body(body: bytes, headers: Mapping[str, str]) -> Any:
    """JSON bodies as JSON with long strings replaced by their digest; other bodies by digest."""
    if not body:
        return None
    ctype = (headers.get("content-type") or "").lower()
    if "json" in ctype:
        try:
            text = body.decode(json.detect_encoding(body), "surrogatepass")  # as json.loads(body) reads it
            value = json.loads(text)
        except ValueError:
            pass
        else:
            # Walking a value is a run's cost: only a body that may hold a long string is walked.
            return _shorten(value) if _may_hold_a_long_string(text) else value
    return {"sha256": hashlib.sha256(body).hexdigest(), "size": len(body), "content_type": ctype.split(";")[0]}


def _may_hold_a_long_string(text: str) -> bool:
    """Whether a string of the JSON ``text`` may be longer than ``_MAX_RECORDED_STR`` (never False
    when one is). A string is at most as long as its token's content (escapes only shorten it).
    Without an escaped quote, every quote of the text opens or closes a token, so the content of
    each token is one of the pieces between two quotes: a split (C speed) finds any long one. With
    one, the regular expression reads the tokens."""
    if len(text) <= _MAX_RECORDED_STR + 2:  # no room for a token of more than _MAX_RECORDED_STR characters
        return False
    if '\\"' in text:
        return _LONG_STRING.search(text) is not None
    return max(map(len, text.split('"'))) > _MAX_RECORDED_STR


def _shorten(value: Any) -> Any:
    if isinstance(value, str) and len(value) > _MAX_RECORDED_STR:
        return {"sha256": hashlib.sha256(value.encode()).hexdigest(), "len": len(value)}
    if isinstance(value, list):
        return [_shorten(v) for v in value]
    if isinstance(value, dict):
        return {k: _shorten(v) for k, v in value.items()}
    return value


def _to_httpx(response: Response, raw: httpx.Request) -> httpx.Response:
    if response.stream is not None:
        return httpx.Response(response.status, headers=dict(response.headers), stream=_Stream(response), request=raw)
    return httpx.Response(response.status, headers=dict(response.headers), content=response.body, request=raw)


class _Stream(httpx.SyncByteStream):
    def __init__(self, response: Response) -> None:
        self._response = response

    def __iter__(self) -> Iterator[bytes]:
        assert self._response.stream is not None
        yield from self._response.stream()
