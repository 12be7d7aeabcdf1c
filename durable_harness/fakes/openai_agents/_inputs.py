"""Session bodies of the Agents API (create, update) and user messages, validated into typed specs
before the state machine sees them.

Shape only: which fields exist, their types and ranges, as the SDK 3.51 sends them. Whatever
depends on state (is a turn active? is this call pending?) is decided by ``_state``. Every error
is a 400 whose ``param`` names the field, whose ``code`` says what is wrong (``_errors``) and
whose message shows the value with ``!r``.

* ``agent``: without ``agent_id``, ``agent.model`` is required; ``agent.tools`` are function
  tools (``_tools``); ``instructions`` is a string or null.
* ``input`` on create: a non-empty string (one user message) or a non-empty list of user
  messages ``{type?: "message", role: "user", content: [input_text{text} | input_image{image_url}]}``;
  required with environment ``none``.
* ``metadata``: at most 16 string pairs (keys 1..64 characters, values up to 512).

What it deliberately does not do: the ``stream``/``stream_options`` flags of a create (``_sse``
validates and serves them), input events (``_input_events``), non-function tools, or environment
templates and files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from durable_harness.fakes.openai_agents._errors import bad_request, empty_array, invalid_type, invalid_value, missing_parameter
from durable_harness.fakes.openai_agents._fields import as_object, as_string, choice, no_unknown
from durable_harness.fakes.openai_agents._tools import parse_tools

__all__ = [
    "CreateSpec",
    "DEFAULT_MODEL",
    "UpdateSpec",
    "parse_create",
    "parse_messages",
    "parse_metadata",
    "parse_parts",
    "parse_update",
    "text_of",
]

_CREATE_KEYS = frozenset({"environment", "agent", "agent_id", "input", "metadata", "prompt_cache_options",
                          "review", "spend_control", "stream", "stream_options", "vault_ids"})
_UPDATE_KEYS = frozenset({"agent", "metadata", "prompt_cache_options", "review", "spend_control"})
_AGENT_KEYS = frozenset({"model", "instructions", "tools", "reasoning", "text", "service_tier",
                         "multi_agent", "compaction", "experimental"})
_MESSAGE_KEYS = frozenset({"type", "role", "content"})
_PART_KEYS = {"input_text": ("text", frozenset({"type", "text"})),
              "input_image": ("image_url", frozenset({"type", "image_url"}))}
_EFFORTS = (None, "none", "minimal", "low", "medium", "high", "xhigh", "max")
_TIERS = (None, "auto", "default", "flex", "priority", "fast", "ultrafast")
_ENVIRONMENTS = ("none", "openai_hosted", "self_hosted")
MAX_METADATA_PAIRS = 16
DEFAULT_MODEL = "gpt-5.1-codex"
_MESSAGE_SHAPE = "{'role': 'user', 'content': [{'type': 'input_text', 'text': '...'}]}"


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


def parse_metadata(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    metadata = as_object(value, "metadata")
    if len(metadata) > MAX_METADATA_PAIRS:
        raise invalid_value("metadata", f"{len(metadata)!r} pairs given; at most {MAX_METADATA_PAIRS} are allowed.")
    for key, item in metadata.items():
        if not 1 <= len(key) <= 64:
            raise invalid_value("metadata", f"key {key!r} must be 1 to 64 characters.")
        if not isinstance(item, str) or len(item) > 512:
            raise invalid_value(f"metadata.{key}", f"{item!r} must be a string of at most 512 characters.")
    return dict(metadata)


def parse_messages(value: Any, param: str, *, allow_text: bool) -> list[list[dict[str, Any]]]:
    """User messages -> each message's content parts; with ``allow_text`` a string is one message."""
    if allow_text and isinstance(value, str):
        as_string(value, param)
        return [[{"type": "input_text", "text": value}]]
    if not isinstance(value, list):
        expected = "a string or an array of user messages" if allow_text else "an array of user messages"
        raise invalid_type(param, f"{expected} like [{_MESSAGE_SHAPE}]", value)
    if not value:
        raise empty_array(param, "at least one user message")
    return [_message(as_object(raw, f"{param}[{i}]"), f"{param}[{i}]") for i, raw in enumerate(value)]


def _message(message: dict[str, Any], where: str) -> list[dict[str, Any]]:
    no_unknown(message, _MESSAGE_KEYS, f"{where}.")
    if message.get("type", "message") != "message":
        raise invalid_value(f"{where}.type", f"{message.get('type')!r}; a user message has type 'message' (or none).")
    if "role" not in message:
        raise missing_parameter(f"{where}.role", f"A user message looks like {_MESSAGE_SHAPE}.")
    if message["role"] != "user":
        raise invalid_value(f"{where}.role", f"{message['role']!r}; only 'user' messages can be sent.")
    content = message.get("content")
    if content is None:
        raise missing_parameter(f"{where}.content", f"A user message looks like {_MESSAGE_SHAPE}.")
    parts = parse_parts(content, f"{where}.content")
    if not parts:
        raise empty_array(f"{where}.content", "at least one part")
    return parts


def parse_parts(value: Any, param: str) -> list[dict[str, Any]]:
    """A list of ``input_text{text}``/``input_image{image_url}`` parts (message content, tool output)."""
    if not isinstance(value, list):
        raise invalid_type(param, "an array of input_text/input_image parts", value)
    parts = []
    for j, raw in enumerate(value):
        part = as_object(raw, f"{param}[{j}]")
        kind = part.get("type")
        if kind not in _PART_KEYS:
            raise invalid_value(f"{param}[{j}].type", f"{kind!r}; expected 'input_text' or 'input_image'.")
        key, allowed = _PART_KEYS[kind]
        no_unknown(part, allowed, f"{param}[{j}].")
        if key not in part:
            raise missing_parameter(f"{param}[{j}].{key}")
        parts.append({"type": kind, key: as_string(part[key], f"{param}[{j}].{key}", non_empty=False)})
    return parts


def text_of(messages: list[list[dict[str, Any]]]) -> str:
    """The text of user messages: every input_text part, messages joined by newlines."""
    return "\n".join("".join(p["text"] for p in parts if p["type"] == "input_text") for parts in messages)


def parse_agent(value: Any, *, require_model: bool) -> dict[str, Any] | None:
    if value is None:
        if require_model:
            raise missing_parameter("agent.model", "Give the agent a model, e.g. {'model': 'gpt-5.1', 'tools': "
                                                   "[...]}, or name a saved agent with 'agent_id'.")
        return None
    agent = as_object(value, "agent")
    no_unknown(agent, _AGENT_KEYS, "agent.")
    if agent.get("model") is None and require_model:
        raise missing_parameter("agent.model", "Without 'agent_id' the agent needs a model, e.g. 'gpt-5.1'.")
    if "model" in agent:
        as_string(agent["model"], "agent.model")
    if agent.get("instructions") is not None:
        as_string(agent["instructions"], "agent.instructions", non_empty=False)
    reasoning = agent.get("reasoning")
    if reasoning is not None:
        choice(as_object(reasoning, "agent.reasoning").get("effort"), _EFFORTS, "agent.reasoning.effort")
    choice(agent.get("service_tier"), _TIERS, "agent.service_tier")
    shaped = dict(agent)
    if "tools" in agent:
        shaped["tools"] = parse_tools(agent["tools"], "agent.tools")
    return shaped


def _options(body: Mapping[str, Any]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if "prompt_cache_options" in body:
        pco = body["prompt_cache_options"]
        if pco is not None:
            choice(as_object(pco, "prompt_cache_options").get("ttl"), ("30m", "12h"), "prompt_cache_options.ttl")
        options["prompt_cache_options"] = pco
    if "review" in body:
        options["review"] = choice(body["review"], ("none", "auto_review"), "review")
    if "spend_control" in body:
        spend = body["spend_control"]
        limit = as_object(spend, "spend_control").get("limit") if spend is not None else None
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0):
            raise invalid_value("spend_control.limit", f"{limit!r} must be a positive integer (USD cents).")
        options["spend_control"] = {"limit": limit, "consumed": 0} if limit is not None else None
    return options


def parse_create(raw: Any) -> CreateSpec:
    body = as_object(raw, "body")
    no_unknown(body, _CREATE_KEYS)
    if body.get("environment") is None:
        raise missing_parameter("environment", "Use {'type': 'none'} for an agent without a sandbox.")
    environment = as_object(body["environment"], "environment")
    choice(environment.get("type"), _ENVIRONMENTS, "environment.type")
    agent_id = body.get("agent_id")
    if agent_id is not None:
        as_string(agent_id, "agent_id")
    agent = parse_agent(body.get("agent"), require_model=agent_id is None)
    messages = parse_messages(body["input"], "input", allow_text=True) if body.get("input") is not None else None
    if messages is None and environment["type"] == "none":
        raise missing_parameter("input", "It is required when environment.type is 'none': send the task as a string.")
    vault_ids = body.get("vault_ids") or []
    if not isinstance(vault_ids, list) or not all(isinstance(v, str) for v in vault_ids):
        raise bad_request(f"Invalid 'vault_ids': {vault_ids!r} must be a list of strings.", param="vault_ids",
                          code="invalid_type")
    return CreateSpec(environment=environment, agent=agent, agent_id=agent_id, messages=messages,
                      metadata=parse_metadata(body.get("metadata")), vault_ids=list(vault_ids),
                      options=_options(body))


def parse_update(raw: Any) -> UpdateSpec:
    body = as_object(raw if raw is not None else {}, "body")
    no_unknown(body, _UPDATE_KEYS)
    metadata = parse_metadata(body["metadata"]) if "metadata" in body else None
    return UpdateSpec(agent=parse_agent(body.get("agent"), require_model=False), metadata=metadata,
                      options=_options(body))
