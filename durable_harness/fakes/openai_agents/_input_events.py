"""Input events of ``POST /agents/sessions/{id}/events``, validated into typed events.

The body is ``{"events": [...]}``, a non-empty list of (SDK 3.51 ``AgentSessionInputParam``)::

    {"type": "agent.session.input.message",
     "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "continue"}]}]}
    {"type": "agent.session.input.tool_result", "turn_id": "turn_...", "call_id": "call_...",
     "success": true, "output": "{\\"media_id\\": 3}"}            # or "success": false, "error": "why"
    {"type": "agent.session.input.cancel"}
    {"type": "agent.session.input.mcp_approval_request_result", "request_id": "...", "response": {...}}
    {"type": "agent.session.input.computer_use_approval_request_result", "request_id": "...", "response": {...}}

A message's ``input`` is a list of user messages (never a bare string: that shorthand exists only
on ``sessions.create``). A tool result needs string ``turn_id`` and ``call_id`` and a boolean
``success``; ``output`` is a string (encode a JSON object yourself) or a list of
``input_text``/``input_image`` parts; ``error`` is a string. Fields an event does not have are
refused. Every error is a 400 whose ``param`` is the field's path (``events[1].call_id``).

What it deliberately does not do: decide whether the event fits the session's state (is the call
pending? is a turn active? ``_state`` does), or accept approvals (nothing here asks for them; the
state machine answers them with "Unknown pending approval request").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from durable_harness.fakes.openai_agents._errors import empty_array, invalid_type, invalid_value
from durable_harness.fakes.openai_agents._fields import as_bool, as_object, as_string, no_unknown, required
from durable_harness.fakes.openai_agents._inputs import parse_messages, parse_parts

__all__ = [
    "ApprovalEvent",
    "CancelEvent",
    "InputEvent",
    "MessageEvent",
    "ToolResultEvent",
    "parse_events",
]

MESSAGE = "agent.session.input.message"
TOOL_RESULT = "agent.session.input.tool_result"
CANCEL = "agent.session.input.cancel"
APPROVALS = ("agent.session.input.mcp_approval_request_result",
             "agent.session.input.computer_use_approval_request_result")
_KEYS = {MESSAGE: frozenset({"type", "input"}),
         TOOL_RESULT: frozenset({"type", "turn_id", "call_id", "success", "output", "error"}),
         CANCEL: frozenset({"type"}),
         **{kind: frozenset({"type", "request_id", "response"}) for kind in APPROVALS}}


@dataclass(frozen=True)
class MessageEvent:
    messages: list[list[dict[str, Any]]]


@dataclass(frozen=True)
class ToolResultEvent:
    turn_id: str
    call_id: str
    success: bool
    output: Any
    error: str | None


@dataclass(frozen=True)
class CancelEvent:
    pass


@dataclass(frozen=True)
class ApprovalEvent:
    request_id: str


InputEvent = MessageEvent | ToolResultEvent | CancelEvent | ApprovalEvent


def parse_events(raw: Any) -> list[InputEvent]:
    body = as_object(raw, "body")
    no_unknown(body, frozenset({"events"}))
    events = required(body, "events", "events", "Send {'events': [{'type': 'agent.session.input.message', ...}]}.")
    if not isinstance(events, list):
        raise invalid_type("events", "an array of input events", events)
    if not events:
        raise empty_array("events", "at least one input event")
    return [_parse_event(as_object(event, f"events[{i}]"), f"events[{i}]") for i, event in enumerate(events)]


def _parse_event(event: dict[str, Any], where: str) -> InputEvent:
    kind = required(event, "type", f"{where}.type", f"Input event types: {', '.join(sorted(_KEYS))}.")
    if kind not in _KEYS:
        raise invalid_value(f"{where}.type", f"unknown input event type {kind!r}; expected one of "
                                             f"{', '.join(repr(k) for k in sorted(_KEYS))}.")
    no_unknown(event, _KEYS[kind], f"{where}.")
    if kind == MESSAGE:
        return MessageEvent(parse_messages(required(event, "input", f"{where}.input"), f"{where}.input",
                                           allow_text=False))
    if kind == CANCEL:
        return CancelEvent()
    if kind == TOOL_RESULT:
        return _tool_result(event, where)
    as_object(required(event, "response", f"{where}.response"), f"{where}.response")
    return ApprovalEvent(as_string(required(event, "request_id", f"{where}.request_id"), f"{where}.request_id"))


def _tool_result(event: dict[str, Any], where: str) -> ToolResultEvent:
    hint = "Copy it from the session's required_actions[] entry (or the function_call item) you are answering."
    turn_id = as_string(required(event, "turn_id", f"{where}.turn_id", hint), f"{where}.turn_id")
    call_id = as_string(required(event, "call_id", f"{where}.call_id", hint), f"{where}.call_id")
    success = as_bool(required(event, "success", f"{where}.success", "Send true with 'output', or false with "
                                                                     "'error'."), f"{where}.success")
    output, error = event.get("output"), event.get("error")
    if output is not None:
        _check_output(output, f"{where}.output")
    if error is not None:
        as_string(error, f"{where}.error", non_empty=False)
    return ToolResultEvent(turn_id=turn_id, call_id=call_id, success=success, output=output, error=error)


def _check_output(output: Any, param: str) -> None:
    """A string, or a list of ``input_text{text}``/``input_image{image_url}`` parts."""
    if not isinstance(output, (str, list)):
        raise invalid_type(param, "a string (JSON-encode an object yourself) or an array of input_text/input_image "
                                  "parts", output)
    if isinstance(output, list):
        parse_parts(output, param)
