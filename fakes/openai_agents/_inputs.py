"""Request bodies of the Agents API, validated into typed specs before the state machine sees them.

Shape only: which fields exist, their types and ranges, as the SDK 3.51 sends them. Whatever
depends on state (is a turn active? is this call pending?) is decided by ``_state``. Every error
is a 400 whose ``param`` names the field and whose message shows the value with ``!r``.

What it deliberately does not do: the ``stream``/``stream_options`` flags of a create (``_sse``
validates and serves them), non-function tools, or environment templates and files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakes.openai_agents._errors import bad_request

__all__ = [
    "DEFAULT_MODEL",
    "ApprovalEvent",
    "CancelEvent",
    "CreateSpec",
    "InputEvent",
    "MessageEvent",
    "ToolResultEvent",
    "UpdateSpec",
    "parse_create",
    "parse_events",
    "parse_update",
    "text_of",
]

_CREATE_KEYS = frozenset({"environment", "agent", "agent_id", "input", "metadata", "prompt_cache_options",
                          "review", "spend_control", "stream", "stream_options", "vault_ids"})
_UPDATE_KEYS = frozenset({"agent", "metadata", "prompt_cache_options", "review", "spend_control"})
_AGENT_KEYS = frozenset({"model", "instructions", "tools", "reasoning", "text", "service_tier",
                         "multi_agent", "compaction", "experimental"})
_EFFORTS = (None, "none", "minimal", "low", "medium", "high", "xhigh", "max")
_TIERS = (None, "auto", "default", "flex", "priority", "fast", "ultrafast")
_ENVIRONMENTS = ("none", "openai_hosted", "self_hosted")
MAX_METADATA_PAIRS = 16
DEFAULT_MODEL = "gpt-5.1-codex"


@dataclass(frozen=True)
class CreateSpec:
    environment: dict[str, Any]
    agent: dict[str, Any] | None
    agent_id: str | None
    messages: list[list[dict[str, Any]]] | None   # each message's content parts
    metadata: dict[str, str]
    vault_ids: list[str]
    options: dict[str, Any]


@dataclass(frozen=True)
class UpdateSpec:
    agent: dict[str, Any] | None
    metadata: dict[str, str] | None                # None: unchanged
    options: dict[str, Any] = field(default_factory=dict)


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


def _object(value: Any, param: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise bad_request(f"Invalid type for '{param}': expected an object, but got {value!r}.", param=param)
    return value


def _no_unknown(body: Mapping[str, Any], allowed: frozenset[str], where: str = "") -> None:
    for key in body:
        if key not in allowed:
            raise bad_request(f"Unrecognized request argument supplied: {where}{key}", param=f"{where}{key}")


def _choice(value: Any, allowed: tuple[str | None, ...], param: str) -> Any:
    if value not in allowed:
        shown = ", ".join(repr(a) for a in allowed if a is not None)
        raise bad_request(f"Invalid value for '{param}': {value!r}; expected one of {shown}.", param=param)
    return value


def parse_metadata(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    metadata = _object(value, "metadata")
    if len(metadata) > MAX_METADATA_PAIRS:
        raise bad_request(f"Invalid 'metadata': {len(metadata)!r} pairs given; at most {MAX_METADATA_PAIRS} are "
                          "allowed.", param="metadata")
    for key, item in metadata.items():
        if not 1 <= len(key) <= 64:
            raise bad_request(f"Invalid 'metadata': key {key!r} must be 1 to 64 characters.", param="metadata")
        if not isinstance(item, str) or len(item) > 512:
            raise bad_request(f"Invalid 'metadata[{key}]': {item!r} must be a string of at most 512 characters.",
                              param=f"metadata.{key}")
    return dict(metadata)


def parse_messages(value: Any, param: str) -> list[list[dict[str, Any]]]:
    """A string or a list of user messages -> each message's content parts."""
    if isinstance(value, str):
        if not value:
            raise bad_request(f"Invalid '{param}': the input text is empty.", param=param)
        return [[{"type": "input_text", "text": value}]]
    if not isinstance(value, list) or not value:
        raise bad_request(f"Invalid '{param}': expected a string or a non-empty list of messages, got {value!r}.",
                          param=param)
    messages = []
    for i, raw in enumerate(value):
        where = f"{param}[{i}]"
        message = _object(raw, where)
        if message.get("type", "message") != "message" or message.get("role") != "user":
            raise bad_request(f"Invalid '{where}': expected {{type: 'message', role: 'user', content: [...]}}, "
                              f"got {message!r}.", param=where)
        content = message.get("content")
        if not isinstance(content, list) or not content:
            raise bad_request(f"Invalid '{where}.content': expected a non-empty list of parts, got {content!r}.",
                              param=f"{where}.content")
        parts = []
        for j, part in enumerate(content):
            part = _object(part, f"{where}.content[{j}]")
            if part.get("type") == "input_text" and isinstance(part.get("text"), str):
                parts.append({"type": "input_text", "text": part["text"]})
            elif part.get("type") == "input_image" and isinstance(part.get("image_url"), str):
                parts.append({"type": "input_image", "image_url": part["image_url"]})
            else:
                raise bad_request(f"Invalid '{where}.content[{j}]': {part!r} is neither input_text{{text}} nor "
                                  "input_image{image_url}.", param=f"{where}.content[{j}]")
        messages.append(parts)
    return messages


def text_of(messages: list[list[dict[str, Any]]]) -> str:
    """The text of user messages: every input_text part, messages joined by newlines."""
    return "\n".join("".join(p["text"] for p in parts if p["type"] == "input_text") for parts in messages)


def parse_tools(value: Any, param: str) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise bad_request(f"Invalid '{param}': expected a list of tools, got {value!r}.", param=param)
    tools = []
    for i, raw in enumerate(value):
        tool = _object(raw, f"{param}[{i}]")
        if tool.get("type") != "function":
            raise bad_request(f"Unsupported tool type {tool.get('type')!r} at '{param}[{i}]': this fake supports "
                              "only function tools.", param=f"{param}[{i}].type")
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            raise bad_request(f"Invalid '{param}[{i}].name': {name!r} must be a non-empty string.",
                              param=f"{param}[{i}].name")
        shaped = {"type": "function", "name": name, "description": str(tool.get("description") or ""),
                  "parameters": dict(tool.get("parameters") or {"type": "object", "properties": {}}),
                  "defer_loading": bool(tool.get("defer_loading", False))}
        if "async" in tool:
            shaped["async"] = bool(tool["async"])
        tools.append(shaped)
    return tools


def parse_agent(value: Any, *, require_model: bool) -> dict[str, Any] | None:
    if value is None:
        if require_model:
            raise bad_request("Missing required parameter: 'agent.model' (or give 'agent_id').", param="agent.model")
        return None
    agent = _object(value, "agent")
    _no_unknown(agent, _AGENT_KEYS, "agent.")
    if "model" in agent or require_model:
        if not isinstance(agent.get("model"), str) or not agent.get("model"):
            raise bad_request(f"Invalid 'agent.model': {agent.get('model')!r} must be a non-empty string.",
                              param="agent.model")
    reasoning = agent.get("reasoning")
    if reasoning is not None:
        _choice(_object(reasoning, "agent.reasoning").get("effort"), _EFFORTS, "agent.reasoning.effort")
    _choice(agent.get("service_tier"), _TIERS, "agent.service_tier")
    shaped = dict(agent)
    if "tools" in agent:
        shaped["tools"] = parse_tools(agent["tools"], "agent.tools")
    return shaped


def _options(body: Mapping[str, Any]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if "prompt_cache_options" in body:
        pco = body["prompt_cache_options"]
        if pco is not None:
            _choice(_object(pco, "prompt_cache_options").get("ttl"), ("30m", "12h"), "prompt_cache_options.ttl")
        options["prompt_cache_options"] = pco
    if "review" in body:
        options["review"] = _choice(body["review"], ("none", "auto_review"), "review")
    if "spend_control" in body:
        spend = body["spend_control"]
        limit = _object(spend, "spend_control").get("limit") if spend is not None else None
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0):
            raise bad_request(f"Invalid 'spend_control.limit': {limit!r} must be a positive integer (USD cents).",
                              param="spend_control.limit")
        options["spend_control"] = {"limit": limit, "consumed": 0} if limit is not None else None
    return options


def parse_create(raw: Any) -> CreateSpec:
    body = _object(raw, "body")
    _no_unknown(body, _CREATE_KEYS)
    if "environment" not in body:
        raise bad_request("Missing required parameter: 'environment'.", param="environment")
    environment = _object(body["environment"], "environment")
    _choice(environment.get("type"), _ENVIRONMENTS, "environment.type")
    agent_id = body.get("agent_id")
    if agent_id is not None and (not isinstance(agent_id, str) or not agent_id):
        raise bad_request(f"Invalid 'agent_id': {agent_id!r} must be a non-empty string.", param="agent_id")
    agent = parse_agent(body.get("agent"), require_model=agent_id is None)
    messages = parse_messages(body["input"], "input") if body.get("input") is not None else None
    if messages is None and environment["type"] == "none":
        raise bad_request("Missing required parameter: 'input' (it is required when environment.type is 'none').",
                          param="input")
    vault_ids = body.get("vault_ids") or []
    if not isinstance(vault_ids, list) or not all(isinstance(v, str) for v in vault_ids):
        raise bad_request(f"Invalid 'vault_ids': {vault_ids!r} must be a list of strings.", param="vault_ids")
    return CreateSpec(environment=environment, agent=agent, agent_id=agent_id, messages=messages,
                      metadata=parse_metadata(body.get("metadata")), vault_ids=list(vault_ids),
                      options=_options(body))


def parse_update(raw: Any) -> UpdateSpec:
    body = _object(raw if raw is not None else {}, "body")
    _no_unknown(body, _UPDATE_KEYS)
    metadata = parse_metadata(body["metadata"]) if "metadata" in body else None
    return UpdateSpec(agent=parse_agent(body.get("agent"), require_model=False), metadata=metadata,
                      options=_options(body))


def parse_events(raw: Any) -> list[InputEvent]:
    body = _object(raw, "body")
    _no_unknown(body, frozenset({"events"}))
    events = body.get("events")
    if not isinstance(events, list) or not events:
        raise bad_request(f"Invalid 'events': expected a non-empty list of input events, got {events!r}.",
                          param="events")
    return [_parse_event(_object(event, f"events[{i}]"), f"events[{i}]") for i, event in enumerate(events)]


def _parse_event(event: dict[str, Any], where: str) -> InputEvent:
    kind = event.get("type")
    if kind == "agent.session.input.message":
        return MessageEvent(parse_messages(event.get("input"), f"{where}.input"))
    if kind == "agent.session.input.cancel":
        return CancelEvent()
    if kind == "agent.session.input.tool_result":
        for name in ("turn_id", "call_id"):
            if not isinstance(event.get(name), str) or not event.get(name):
                raise bad_request(f"Missing required parameter: '{where}.{name}' (got {event.get(name)!r}).",
                                  param=f"{where}.{name}")
        success = event.get("success")
        if not isinstance(success, bool):
            raise bad_request(f"Invalid '{where}.success': {success!r} must be a boolean.", param=f"{where}.success")
        output, error = event.get("output"), event.get("error")
        if output is not None and not isinstance(output, (str, list)):
            raise bad_request(f"Invalid '{where}.output': {output!r} must be a string or a list of input_text/"
                              "input_image parts.", param=f"{where}.output")
        if error is not None and not isinstance(error, str):
            raise bad_request(f"Invalid '{where}.error': {error!r} must be a string.", param=f"{where}.error")
        return ToolResultEvent(turn_id=event["turn_id"], call_id=event["call_id"], success=success,
                               output=output, error=error)
    if kind in ("agent.session.input.mcp_approval_request_result",
                "agent.session.input.computer_use_approval_request_result"):
        return ApprovalEvent(str(event.get("request_id")))
    raise bad_request(f"Invalid '{where}.type': unknown input event type {kind!r}.", param=f"{where}.type")
