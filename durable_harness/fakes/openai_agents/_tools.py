"""Function tools: what a session's agent declares in ``agent.tools``, and what it may therefore call.

A well-formed function tool is, as the SDK's ``AgentToolConfigParamFunction`` requires::

    {"type": "function", "name": "wp_get_post", "description": "Read a post back.",
     "parameters": {"type": "object", "properties": {"post_id": {"type": "integer"}},
                    "required": ["post_id"]}}

``name`` matches ``^[a-zA-Z0-9_-]{1,64}$``; ``description`` is a string; ``parameters`` is a
JSON Schema of ``type: "object"`` (``properties`` an object and ``required`` a list of strings
when present); ``defer_loading`` and ``async`` are optional booleans. Anything else is a 400 whose
``param`` names the field (``agent.tools[2].parameters``).

An agent can call only the tools its session declares: ``declared_tools(agent)`` is that set, and
``undeclared_answer`` is what the agent says instead of calling one it lacks (the turn engine
ends the turn with it).

What it deliberately does not do: other tool types (mcp, web_search, computer_use ... are refused
as unsupported), or check a call's arguments against the schema (the brains write them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from durable_harness.fakes.openai_agents._errors import ApiError, bad_request, invalid_type, invalid_value
from durable_harness.fakes.openai_agents._fields import as_bool, as_object, as_string, no_unknown, required

__all__ = ["declared_tools", "parse_tools", "undeclared_answer"]

_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
_MAX_NAME = 64
_FUNCTION_KEYS = frozenset({"type", "name", "description", "parameters", "defer_loading", "async"})
_EXAMPLE = ("{'type': 'function', 'name': 'wp_get_post', 'description': 'Read a post back.', "
            "'parameters': {'type': 'object', 'properties': {'post_id': {'type': 'integer'}}}}")


def parse_tools(value: Any, param: str) -> list[dict[str, Any]]:
    """The validated function tools of ``agent.tools`` (``None`` clears them: ``[]``)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise invalid_type(param, "an array of tools", value)
    return [_function_tool(as_object(raw, f"{param}[{i}]"), f"{param}[{i}]") for i, raw in enumerate(value)]


def _function_tool(tool: dict[str, Any], where: str) -> dict[str, Any]:
    kind = required(tool, "type", f"{where}.type", f"A function tool looks like {_EXAMPLE}.")
    if kind != "function":
        raise invalid_value(f"{where}.type", f"unsupported tool type {kind!r}: this fake supports only function "
                                             f"tools, e.g. {_EXAMPLE}.")
    no_unknown(tool, _FUNCTION_KEYS, f"{where}.")
    name = as_string(required(tool, "name", f"{where}.name"), f"{where}.name")
    if len(name) > _MAX_NAME:
        raise bad_request(f"Invalid '{where}.name': string too long. Expected a string with maximum length "
                          f"{_MAX_NAME}, but got a string with length {len(name)} instead.", param=f"{where}.name",
                          code="string_above_max_length")
    if not _NAME.match(name):
        raise invalid_value(f"{where}.name", f"{name!r} does not match pattern. Expected a string that matches the "
                                             "pattern '^[a-zA-Z0-9_-]+$'.")
    description = as_string(required(tool, "description", f"{where}.description",
                                     "Say what the function does, in a sentence."),
                            f"{where}.description", non_empty=False)
    parameters = _schema(required(tool, "parameters", f"{where}.parameters",
                                  "Give a JSON Schema of type 'object' (with 'properties')."),
                         name, f"{where}.parameters")
    shaped: dict[str, Any] = {"type": "function", "name": name, "description": description,
                              "parameters": parameters,
                              "defer_loading": as_bool(tool.get("defer_loading", False), f"{where}.defer_loading")}
    if "async" in tool:
        shaped["async"] = as_bool(tool["async"], f"{where}.async")
    return shaped


def _schema(value: Any, name: str, param: str) -> dict[str, Any]:
    schema = as_object(value, param)

    def wrong(why: str) -> ApiError:
        return bad_request(f"Invalid schema for function {name!r} ('{param}'): {why}", param=param,
                           code="invalid_function_parameters")

    if schema.get("type") != "object":
        got = json.dumps(schema.get("type"))
        raise wrong(f"schema must be a JSON Schema of 'type: \"object\"', got 'type: {got}'.")
    properties = schema.get("properties", {})
    if not isinstance(properties, dict) or not all(isinstance(p, dict) for p in properties.values()):
        raise wrong(f"'properties' must be an object mapping each argument to its schema, got {properties!r}.")
    wanted = schema.get("required", [])
    if not isinstance(wanted, list) or not all(isinstance(r, str) for r in wanted):
        raise wrong(f"'required' must be an array of argument names, got {wanted!r}.")
    return dict(schema)


def declared_tools(agent: Mapping[str, Any]) -> frozenset[str]:
    """The names of the function tools a session's agent declares."""
    tools = agent.get("tools") or []
    return frozenset(str(t.get("name")) for t in tools if isinstance(t, Mapping) and t.get("type") == "function")


def undeclared_answer(missing: Sequence[str], declared: frozenset[str]) -> str:
    """The agent's final answer when the step it would take needs tools its session does not declare."""
    names = ", ".join(repr(name) for name in missing)
    have = ", ".join(repr(name) for name in sorted(declared)) or "none"
    return (f"I cannot do the next step without the tool {names}: this session's agent does not declare it "
            f"(its function tools: {have}). Nothing was done. Declare it in agent.tools (sessions.update) and "
            "tell me to continue.")
