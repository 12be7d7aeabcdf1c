"""Wire objects of the Agents API (openai SDK 3.51 shapes), built from the fake's records.

Every builder returns a plain JSON dict that the SDK's pydantic models accept *strictly*, every
required field present: ``AgentSession``, ``Turn``, the ``AgentSessionItem`` union members, the
required action ``function_call``, ``AgentSessionDeleted``, ``Subagent`` and the subagent items
(``create_subagent_call``, ``wait_for_subagents_call``, ``agent_message``). Function-call ``arguments`` are a JSON
**object** (the API's field is "any JSON"; the SDK's helpers accept a string or an object, and an
object spares candidates a second decode).

What it deliberately does not do: decide ids, times or status (the state machine does), or
validate request bodies beyond shaping what was already accepted.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from durable_harness.fakes.openai_agents._records import Session, Subagent, Turn

__all__ = [
    "agent_message_item",
    "agent_object",
    "assistant_message_item",
    "create_subagent_call_item",
    "deleted_object",
    "environment_object",
    "function_call_action",
    "function_call_item",
    "function_call_output_item",
    "reasoning_item",
    "session_object",
    "subagent_object",
    "turn_object",
    "user_message_item",
    "wait_for_subagents_call_item",
    "wire_copy",
]


def agent_object(agent_id: str, spec: Mapping[str, Any], tools: list[dict[str, Any]]) -> dict[str, Any]:
    """The session's effective agent; ``spec`` is the validated ``agent`` create/update body."""
    reasoning = spec.get("reasoning") or {}
    multi = spec.get("multi_agent") or {}
    enabled = bool(multi.get("enabled", False))
    return {
        "id": agent_id,
        "instructions": spec.get("instructions"),
        "model": spec["model"],
        "multi_agent": {"enabled": enabled,
                        "max_concurrent_subagents": multi.get("max_concurrent_subagents", 6) if enabled else None},
        "name": None,
        "reasoning": {"effort": reasoning.get("effort"), "summary": reasoning.get("summary")},
        "service_tier": spec.get("service_tier") or "auto",
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tools": tools,
    }


def environment_object(spec: Mapping[str, Any], environment_id: str) -> dict[str, Any]:
    """The session's environment from a validated create-time ``environment``."""
    kind = spec["type"]
    if kind == "none":
        return {"type": "none"}
    if kind == "self_hosted":
        return {"type": "self_hosted", "id": environment_id, "capability_directories": [],
                "remote_url": f"wss://openai.dh.test/v1/agents/environments/{environment_id}/connect",
                "workspace_directory": spec.get("workspace_directory") or "/workspace"}
    network = spec.get("network") or {}
    return {
        "type": "openai_hosted",
        "id": spec.get("environment_id") or environment_id,
        "capability_directories": [],
        "files": [],
        "network": {"access": network.get("access", "enabled"),
                    "allowed_domains": list(network.get("allowed_domains") or [])},
        "packages": {"npm": [], "python": [], "system": []},
        "plugins": [],
        "skills": [],
        "container_size": spec.get("container_size"),
    }


def session_object(session: Session) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": session.id,
        "object": "agent.session",
        "agent": session.agent,
        "created_at": session.created_at,
        "last_active_at": session.last_active_at,
        "environment": session.environment,
        "error": session.error,
        "metadata": dict(session.metadata),
        "required_actions": session.required_actions(),
        "status": session.status,
        "usage": None,
        "vault_ids": list(session.vault_ids),
    }
    body.update({k: v for k, v in session.options.items() if v is not None})
    return body


def turn_object(turn: Turn) -> dict[str, Any]:
    return {
        "id": turn.id,
        "object": "agent.session.turn",
        "session_id": turn.session_id,
        "agent_id": turn.agent_id,
        "subagent_id": turn.subagent_id,
        "status": turn.status,
        "created_at": turn.created_at,
        "started_at": turn.started_at,
        "completed_at": turn.completed_at,
        "error": turn.error,
        "usage": None,
        "prompt_cache_options": None,
    }


def subagent_object(subagent: Subagent) -> dict[str, Any]:
    """``instructions`` is a list of ``output_text`` parts, as the SDK's ``Subagent`` has it."""
    return {
        "id": subagent.id,
        "object": "agent.session.subagent",
        "session_id": subagent.session_id,
        "parent_agent_id": subagent.parent_agent_id,
        "name": subagent.name,
        "instructions": [_text(subagent.instructions)],
        "status": subagent.status,
        "opened_at": subagent.opened_at,
        "closed_at": subagent.closed_at,
    }


def deleted_object(session_id: str) -> dict[str, Any]:
    return {"id": session_id, "object": "agent.session.deleted", "deleted": True}


# -- items --------------------------------------------------------------------------------------
def user_message_item(item_id: str | None, turn_id: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": item_id, "type": "message", "role": "user", "content": content,
            "status": "completed", "phase": None, "turn_id": turn_id}


def assistant_message_item(item_id: str, turn_id: str, text: str, phase: str) -> dict[str, Any]:
    return {"id": item_id, "type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": text}],
            "status": "completed", "phase": phase, "turn_id": turn_id}


def reasoning_item(item_id: str, turn_id: str, text: str) -> dict[str, Any]:
    return {"id": item_id, "type": "reasoning", "summary": [{"type": "summary_text", "text": text}],
            "status": "completed", "turn_id": turn_id}


def function_call_item(item_id: str, turn_id: str, call_id: str, name: str,
                       arguments: Mapping[str, Any]) -> dict[str, Any]:
    """A call starts ``in_progress``; it becomes ``completed``/``failed`` with its result, or
    ``incomplete`` when its turn is cancelled unanswered."""
    return {"id": item_id, "type": "function_call", "call_id": call_id, "name": name,
            "arguments": dict(arguments), "status": "in_progress", "turn_id": turn_id}


def function_call_output_item(item_id: str, turn_id: str, call_id: str, *, success: bool,
                              output: Any, error: str | None) -> dict[str, Any]:
    return {"id": item_id, "type": "function_call_output", "call_id": call_id,
            "output": output if success else None, "error": None if success else (error or "Tool call failed."),
            "status": "completed" if success else "failed", "turn_id": turn_id}


def function_call_action(turn_id: str, call_id: str, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """A session ``required_actions[]`` entry for an unanswered function call."""
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": dict(arguments),
            "turn_id": turn_id}


# -- subagent items -----------------------------------------------------------------------------
def _text(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text}


def create_subagent_call_item(item_id: str, turn_id: str, agent_id: str, instructions: str, *,
                              model: str | None, reasoning_effort: str | None) -> dict[str, Any]:
    """The root agent's request to spawn a subagent (``agent_id``: the requesting agent)."""
    return {"id": item_id, "type": "create_subagent_call", "agent_id": agent_id, "content": [_text(instructions)],
            "model": model, "reasoning_effort": reasoning_effort, "status": "completed", "turn_id": turn_id}


def wait_for_subagents_call_item(item_id: str, turn_id: str, sender_agent_id: str,
                                 recipient_agent_ids: list[str]) -> dict[str, Any]:
    return {"id": item_id, "type": "wait_for_subagents_call", "sender_agent_id": sender_agent_id,
            "recipient_agent_ids": list(recipient_agent_ids), "status": "completed", "turn_id": turn_id}


def agent_message_item(item_id: str, turn_id: str, sender_agent_id: str, recipient_agent_id: str,
                       text: str) -> dict[str, Any]:
    """A message between agent threads (not an output item: no ``turn.item.done``)."""
    return {"id": item_id, "type": "agent_message", "sender_agent_id": sender_agent_id,
            "recipient_agent_id": recipient_agent_id, "content": [_text(text)], "turn_id": turn_id}


def wire_copy(value: Any) -> Any:
    """A deep copy of a wire value (dicts, lists and JSON scalars, as the builders here make them):
    what ``copy.deepcopy`` gives for one, several times faster (the brain is handed a copy of every
    item at each of its steps). Anything else in it is deep-copied as ``copy.deepcopy`` would."""
    kind = type(value)
    if kind is dict:
        return {k: wire_copy(v) for k, v in value.items()}
    if kind is list:
        return [wire_copy(v) for v in value]
    if value is None or kind is str or kind is int or kind is float or kind is bool:
        return value
    return copy.deepcopy(value)
