"""The live event stream of the sessions fake: ``GET /agents/sessions/{id}/events`` and
``POST /agents/sessions`` with ``stream: true`` as Server-Sent Events (openai SDK 3.51 framing).

``EventStreams`` is the one subscriber of the state machine's lifecycle events. It turns each
into a wire event once (a unique ``event_id``; ``turn_id`` and ``usage`` on turn events;
``output_index`` on item events; a ``turn.item.done`` after each agent output item) and queues it
on every open stream of that session. A stream is a lazy generator of frames
``event: <type>\\ndata: <json>\\n\\n``, one event per chunk, so the gate can cut it after k events.

Time is virtual. When a stream has nothing queued it makes time pass, because in-process the
candidate reading it is the only actor: it jumps the clock to the next deadline (so the agent's
scheduled thinking happens), writes ``: keepalive`` comments every ``KEEPALIVE_S`` of silence, and
ends cleanly (EOF) after ``idle_close_s`` of silence while no agent of this fake is thinking, or
once the session is deleted. Every step either yields a chunk or moves the clock forward, and the
number of steps is capped, so a stream can never hang the harness. A subscription starts "now":
the current session status event first (``agent.session.idle``, ...), then what happens next.

What it deliberately does not do: replay (no ``Last-Event-ID``, no cursor, as the real API),
text or reasoning deltas, duplicates or cuts (the gate's faults inject those), or HTTP.
"""

from __future__ import annotations

import hashlib
import json
import random
import string
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from durable_harness.wire import Request, Response
from durable_harness.fakes.openai_agents._errors import ApiError, bad_request
from durable_harness.fakes.openai_agents._objects import session_object
from durable_harness.fakes.openai_agents._records import Clock, Session
from durable_harness.fakes.openai_agents._state import SessionsState

__all__ = ["KEEPALIVE_S", "EventStreams", "StreamClock", "derived_random", "query_flag", "stream_flags"]

KEEPALIVE_S = 15.0
MAX_QUEUED = 10_000          # an unread stream is dropped beyond this many queued events
MAX_STEPS = 1_000_000        # hard cap on the steps of one stream, whatever the clock does
SSE_HEADERS = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}
LIFECYCLE = frozenset(f"agent.session.{s}" for s in ("created", "in_progress", "requires_action", "idle", "failed"))
TURN_ENDS = frozenset(f"agent.session.turn.{s}" for s in ("completed", "failed", "cancelled"))
OUTPUT_ITEM_TYPES = frozenset({
    "reasoning", "function_call", "mcp_call", "computer_use_call", "computer_use_approval_request",
    "web_search_call", "command_execution", "create_subagent_call", "send_subagent_input_call",
    "resume_subagent_call", "wait_for_subagents_call", "interrupt_subagent_call", "close_subagent_call",
})
_PAD_ALPHABET = string.ascii_letters + string.digits


class StreamClock(Clock, Protocol):
    """What a stream needs of the virtual clock besides ``Clock`` (``durable_harness.harness.VirtualClock`` fits)."""

    def next_deadline(self) -> float | None: ...
    def jump(self, to_s: float) -> None: ...


def derived_random(rng: random.Random, name: str) -> random.Random:
    """A private stream for ``name``, derived from ``rng``'s state without drawing from it."""
    digest = hashlib.sha256(repr(rng.getstate()).encode() + b"/" + name.encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def stream_flags(body: Mapping[str, Any]) -> tuple[bool, bool]:
    """``(stream, include_obfuscation)`` of a create body; 400 naming the param when malformed."""
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise bad_request(f"Invalid 'stream': {stream!r} must be a boolean.", param="stream")
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        raise bad_request(f"Invalid 'stream_options': {options!r} must be an object.", param="stream_options")
    obfuscate = (options or {}).get("include_obfuscation")
    if obfuscate is not None and not isinstance(obfuscate, bool):
        raise bad_request(f"Invalid 'stream_options.include_obfuscation': {obfuscate!r} must be a boolean.",
                          param="stream_options.include_obfuscation")
    if stream and body.get("input") is None and (body.get("environment") or {}).get("type") != "self_hosted":
        raise bad_request("Missing required parameter: 'input' (it is required with stream: true unless the "
                          "environment is self_hosted).", param="input")
    return bool(stream), obfuscate is not False


def query_flag(request: Request, name: str, default: bool) -> bool:
    raw = request.arg(name)
    if raw is None:
        return default
    if raw.lower() in ("true", "1"):
        return True
    if raw.lower() in ("false", "0"):
        return False
    raise bad_request(f"Invalid '{name}': {raw!r} must be true or false.", param=name)


@dataclass(frozen=True)
class _Event:
    type: str
    json: str                    # the data line without obfuscation, serialised when it happened


@dataclass
class _Subscriber:
    session_id: str | None       # None until a create-stream knows its session
    obfuscate: bool
    queue: deque[_Event] = field(default_factory=deque)
    dropped: bool = False
    started: bool = False


class EventStreams:
    """Every open SSE stream of one sessions fake, fed by the state machine's events."""

    def __init__(self, state: SessionsState, clock: StreamClock, rng: random.Random, *,
                 idle_close_s: float = 300.0) -> None:
        if not isinstance(idle_close_s, (int, float)) or isinstance(idle_close_s, bool) or idle_close_s <= 0:
            raise ValueError(f"idle_close_s={idle_close_s!r} must be a positive number of virtual seconds")
        self._state = state
        self._clock = clock
        self._rng = rng
        self._idle_close_s = float(idle_close_s)
        self._open: list[_Subscriber] = []
        self._outputs: dict[str, int] = {}          # turn_id -> output items so far
        state.subscribe(self._on_event)

    def open_streams(self) -> int:
        """How many streams are subscribed (read or not yet read)."""
        return len(self._open)

    # -- opening ------------------------------------------------------------------------------
    def follow(self, session_id: str, *, include_obfuscation: bool = True) -> Response:
        """The response of ``GET .../events``: the current status event, then what happens next."""
        session = self._state.session(session_id)
        sub = self._subscribe(session_id, include_obfuscation)
        sub.queue.append(self._event(f"agent.session.{session.status}", {"session": session_object(session)}))
        return self._response(sub)

    def create(self, create: Callable[[], Session], *, include_obfuscation: bool = True) -> Response:
        """The response of a streamed create: subscribe first, so ``agent.session.created`` is the
        first event, then bind the stream to the session ``create`` made."""
        sub = self._subscribe(None, include_obfuscation)
        try:
            session = create()
        except BaseException:
            self._close(sub)
            raise
        sub.session_id = session.id
        return self._response(sub)

    def _subscribe(self, session_id: str | None, obfuscate: bool) -> _Subscriber:
        sub = _Subscriber(session_id, obfuscate)
        self._open.append(sub)
        return sub

    def _close(self, sub: _Subscriber) -> None:
        if sub in self._open:
            self._open.remove(sub)

    def _response(self, sub: _Subscriber) -> Response:
        def body() -> Iterator[bytes]:
            if sub.started:
                raise RuntimeError("an SSE response body can be read only once")
            sub.started = True
            return self._run(sub)

        return Response(status=200, headers=dict(SSE_HEADERS), stream=body)

    # -- events -------------------------------------------------------------------------------
    def _event(self, type_: str, fields: Mapping[str, Any]) -> _Event:
        data = {"type": type_, "event_id": self._state.ids.next("evt"), **fields}
        return _Event(type_, json.dumps(data, separators=(",", ":")))

    def _on_event(self, type_: str, data: Mapping[str, Any]) -> None:
        session_id = data.get("session_id") or (data.get("session") or {}).get("id")
        if not session_id:
            return  # not a session's event (e.g. a prewarmed environment's): webhooks only
        for event in self._wire(type_, data):
            for sub in list(self._open):
                if sub.session_id is None or sub.session_id == session_id:
                    self._push(sub, event)

    def _wire(self, type_: str, data: Mapping[str, Any]) -> list[_Event]:
        if type_ in LIFECYCLE:
            return [self._event(type_, {"session": data["session"]})]
        if type_.startswith("agent.session.turn.") and isinstance(data.get("turn"), dict):
            fields = {"session_id": data["session_id"], "turn_id": data["turn"]["id"], "turn": data["turn"]}
            return [self._event(type_, {**fields, "usage": None} if type_ in TURN_ENDS else fields)]
        if type_ == "agent.session.turn.item.added":
            item = data["item"]
            base = {"session_id": data["session_id"], "turn_id": data.get("turn_id", item.get("turn_id"))}
            if not _is_output(item):
                return [self._event(type_, {**base, "item": item, "output_index": None})]
            turn_id = str(base["turn_id"])
            index = self._outputs.get(turn_id, 0)
            self._outputs[turn_id] = index + 1
            return [self._event(type_, {**base, "item": item, "output_index": index}),
                    self._event("agent.session.turn.item.done", {**base, "item": item, "output_index": index})]
        if type_.startswith("agent.session.subagent."):
            return [self._event(type_, {"subagent": data["subagent"]})]  # the SDK's shape: no session_id
        return [self._event(type_, data)]

    def _push(self, sub: _Subscriber, event: _Event) -> None:
        if len(sub.queue) >= MAX_QUEUED:
            sub.dropped = True   # nobody reads it: stop feeding it (the real server closes slow readers too)
            self._close(sub)
            return
        sub.queue.append(event)

    def _frame(self, event: _Event, obfuscate: bool) -> bytes:
        data = event.json
        if obfuscate:
            pad = "".join(self._rng.choice(_PAD_ALPHABET) for _ in range(self._rng.randint(4, 32)))
            data = data[:-1] + ',"obfuscation":' + json.dumps(pad) + "}"
        return f"event: {event.type}\ndata: {data}\n\n".encode()

    # -- the stream ---------------------------------------------------------------------------
    def _run(self, sub: _Subscriber) -> Iterator[bytes]:
        clock = self._clock
        try:
            last_event = last_write = clock.now()
            for _ in range(MAX_STEPS):
                if sub.queue:
                    yield self._frame(sub.queue.popleft(), sub.obfuscate)
                    last_event = last_write = clock.now()
                    continue
                if sub.dropped or not self._alive(sub.session_id):
                    return
                now = clock.now()
                if now - last_event >= self._idle_close_s and self._state.next_wakeup() is None:
                    return
                if now - last_write >= KEEPALIVE_S:
                    yield b": keepalive\n\n"
                    last_write = now
                    continue
                deadline = clock.next_deadline()
                if deadline is not None and deadline <= now:
                    clock.jump(now)  # fire what is already due
                    continue
                later = [t for t in (deadline, last_write + KEEPALIVE_S, last_event + self._idle_close_s)
                         if t is not None and t > now]
                clock.jump(min(later))  # never empty: the keepalive time is always ahead here
        finally:
            self._close(sub)

    def _alive(self, session_id: str | None) -> bool:
        if session_id is None:
            return False
        try:
            self._state.session(session_id)
        except ApiError:
            return False
        return True


def _is_output(item: Mapping[str, Any]) -> bool:
    kind = item.get("type")
    return kind in OUTPUT_ITEM_TYPES or (kind == "message" and item.get("role") == "assistant")
