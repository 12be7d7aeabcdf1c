"""The gate: the only I/O seam between the candidate and the simulated world.

In-process the gate is an ``httpx`` transport: a ``respx.Router`` with one route per service
host, whose side effect dispatches to that fake. Every request is recorded in the history as an
operation (``invoke`` then ``ok``/``fail``/``info``), every armed fault is asked whether it
fires, and every firing is recorded with its evidence (did the fake commit? what did it say?).

What it deliberately does not do: decide what a fault means for the candidate (the faults do),
or judge anything (checkers do). Secrets never enter the history: credentials are recorded by
the label the service gives them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

import httpx
import respx

from fakes import Request, Response
from harness._clock import VirtualClock
from harness._history import History
from harness.candidate._protocol import CandidateCrashed, CandidateRunaway
from harness.faults import Action, Crash, Cut, Drop, Duplicate, Effect, FaultContext, Lose, RequestFault, Respond

__all__ = ["Gate", "Service"]

_MAX_RECORDED_STR = 200
MAX_REQUESTS_PER_STEP = 2000


class Service(Protocol):
    """A fake as the gate sees it."""

    name: str
    host: str
    root: str  # path prefix of the service's API below the host, e.g. "/wp-json"

    def handle(self, request: Request) -> Response: ...
    def mutations(self) -> int: ...
    def credential(self, request: Request) -> str | None: ...


class Gate:
    def __init__(self, clock: VirtualClock, history: History, services: Sequence[Service],
                 faults: Sequence[RequestFault] = (),
                 effects: Mapping[str, Callable[[Mapping[str, Any]], dict[str, Any] | None]] | None = None) -> None:
        self.clock = clock
        self.history = history
        self.services = {s.host: s for s in services}
        self.faults = list(faults)
        self.healed = False
        self.requests = 0
        self.effects = dict(effects or {})
        self.max_requests_per_step = MAX_REQUESTS_PER_STEP
        self._step_requests = 0

    def begin_step(self) -> None:
        """A new step of the candidate: its request budget starts again."""
        self._step_requests = 0

    def heal(self) -> None:
        """Lift every fault: from now on requests are delivered as they are."""
        self.healed = True

    def transport(self, process: str) -> httpx.BaseTransport:
        """An httpx transport for one actor (``process`` names it in the history)."""
        router = respx.Router(assert_all_called=False, assert_all_mocked=True)
        for host in self.services:
            router.route(host=host).mock(side_effect=lambda request, _p=process: self.dispatch(_p, request))
        return httpx.MockTransport(router.handler)

    # -- dispatch ------------------------------------------------------------------------
    def dispatch(self, process: str, raw: httpx.Request) -> httpx.Response:
        self._step_requests += 1
        if self._step_requests > self.max_requests_per_step:  # a runaway loop: stop it like a crash
            why = f"made more than {self.max_requests_per_step} requests in one step (a runaway loop)"
            self.history.append(self.clock.now(), "crash", process, {"because": why})
            raise CandidateRunaway(f"{process}: {why}")
        self.clock.run_due()
        service = self.services[raw.url.host]
        request = Request.build(raw.method, raw.url.path, raw.url.query.decode("ascii"),
                                dict(raw.headers), raw.read())
        route = request.path[len(service.root):] if request.path.startswith(service.root) else request.path
        self.requests += 1
        op = self.history.invoke(self.clock.now(), process, _describe(service, route, request))
        ctx = FaultContext(service=service.name, route=route, request=request, process=process, op=op)
        armed = [] if self.healed else self.faults
        for fault in armed:
            fault.observe(ctx)

        for fault in armed:
            action = fault.before(ctx)
            if isinstance(action, Effect):
                self._apply_effect(fault, action, ctx)
            elif action is not None:
                return self._act_before(fault, action, ctx, raw)

        before = service.mutations()
        response = service.handle(request)
        ctx.response = response
        ctx.committed = service.mutations() != before
        for fault in armed:
            action = fault.after(ctx)
            if action is not None:
                return self._act_after(fault, action, ctx, raw)
        self._complete(op, response, ctx.committed)
        if response.stream is not None:
            stream_actions = [(f, a) for f in armed if (a := f.stream(ctx)) is not None]
            response = Response(response.status, response.headers, response.body,
                                stream=self._tap(ctx, response, stream_actions))
        return _to_httpx(response, raw)

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
            for chunk in source():
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
                    for fault, dup in dups:
                        if delivered in dup.events:
                            self._record_fault(fault, ctx, {"duplicated_event": delivered, **meta})
                            self.history.append(self.clock.now(), "event", ctx.process,
                                                {"op": ctx.op, "n": delivered, "duplicate": True, **meta})
                            yield event

        return tapped

    def _cut_here(self, fault: RequestFault, cut: Cut, ctx: FaultContext, delivered: int, event: bytes) -> Iterator[bytes]:
        self._record_fault(fault, ctx, {"events_delivered": delivered, "mode": cut.mode})
        if cut.mode == "reset":
            yield event[: len(event) // 2]  # a truncated event, then the connection dies
            raise httpx.RemoteProtocolError("peer closed connection without sending complete message body (injected)")

    def _apply_effect(self, fault: RequestFault, effect: Effect, ctx: FaultContext) -> None:
        apply = self.effects.get(effect.name)
        if apply is None:
            raise KeyError(f"fault {fault.kind!r} needs the world effect {effect.name!r}, which this world lacks")
        evidence = apply(effect.params)
        if evidence is None:  # nothing to act on: no evidence, so no firing
            return
        self._record_fault(fault, ctx, {"effect": effect.name, **evidence})

    def _act_before(self, fault: RequestFault, action: Action, ctx: FaultContext, raw: httpx.Request) -> httpx.Response:
        if isinstance(action, Respond):
            self._record_fault(fault, ctx, {"delivered": False, "status": action.response.status})
            self._complete(ctx.op, action.response, committed=False)
            return _to_httpx(action.response, raw)
        if isinstance(action, Drop):
            self._record_fault(fault, ctx, {"delivered": False, "error": action.kind})
            self.history.complete(self.clock.now(), ctx.op, "fail", {"error": f"connection {action.kind} before delivery", "committed": False})
            raise httpx.ConnectError(f"connection {action.kind} (injected)", request=raw)
        if isinstance(action, Crash):
            self._record_fault(fault, ctx, {"delivered": False})
            self._crash(ctx, "crashed before delivery")
        raise TypeError(f"fault {fault.kind!r} returned {action!r}, which cannot act before delivery")

    def _act_after(self, fault: RequestFault, action: Action, ctx: FaultContext, raw: httpx.Request) -> httpx.Response:
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
            self._complete(ctx.op, action.response, ctx.committed)
            return _to_httpx(action.response, raw)
        if isinstance(action, Crash):
            self._record_fault(fault, ctx, evidence)
            self._crash(ctx, "crashed after the fake committed, before the response")
        raise TypeError(f"fault {fault.kind!r} returned {action!r}, which cannot act after delivery")

    def _crash(self, ctx: FaultContext, why: str) -> None:
        data: dict[str, Any] = {"error": why, "committed": ctx.committed}
        if ctx.response is not None:
            data.update(status=ctx.response.status, body=_summarise_body(ctx.response.body, ctx.response.headers))
        self.history.complete(self.clock.now(), ctx.op, "info", data)
        self.history.append(self.clock.now(), "crash", ctx.process, {"op": ctx.op, "because": why})
        raise CandidateCrashed(f"{ctx.process}: {why} (op {ctx.op})")

    def _record_fault(self, fault: RequestFault, ctx: FaultContext, evidence: Mapping[str, Any]) -> None:
        fault.state.evidence.append({"op": ctx.op, **evidence})
        self.history.append(self.clock.now(), "fault", "nemesis",
                            {**fault.describe(), "op": ctx.op, "target": ctx.process, "evidence": dict(evidence)})

    def _complete(self, op: int, response: Response, committed: bool) -> None:
        type_ = "ok" if response.status < 400 else ("info" if response.status >= 500 or response.status == 408 else "fail")
        self.history.complete(self.clock.now(), op, type_, {
            "status": response.status, "committed": committed, "body": _summarise_body(response.body, response.headers),
        })


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
            return _shorten(json.loads(body))
        except ValueError:
            pass
    return {"sha256": hashlib.sha256(body).hexdigest(), "size": len(body), "content_type": ctype.split(";")[0]}


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
