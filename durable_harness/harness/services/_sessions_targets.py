"""What a request to the sessions API does, in the words trigger targets use.

``tool_result:wp_create_draft`` is a tool result for a call of that tool, ``tool_result:image:2`` the
result of the call that uploads image 2, whichever turn or call id it answers and however many
results came before it: ground truth knows which tool and role each call id was issued for. A request whose body holds several events has the verbs of each.

What it deliberately does not do: decide whether the event is valid (the fake does).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from durable_harness.harness.services._registry import RoleOf
from durable_harness.wire import Request

__all__ = ["TARGETS", "classify"]

TARGETS: Mapping[str, str] = {
    "create_session": "a session create (POST /agents/sessions)",
    "list_sessions": "a listing of sessions (GET /agents/sessions): a lookup",
    "read_session": "a read of one session (GET /agents/sessions/{id})",
    "read_items": "a read of a session's items or turns (GET .../items, .../turns, .../turns/{id}/items)",
    "stream": "the session's event stream (GET /agents/sessions/{id}/events)",
    "input": "any input event sent to a session (POST /agents/sessions/{id}/events)",
    "message": "a user message (agent.session.input.message)",
    "tool_result": "a tool result (agent.session.input.tool_result); tool_result:TOOL for a call of tool TOOL, "
                   "tool_result:ROLE for the call of the job's ROLE (image:2, article)",
    "cancel_turn": "a cancel of the active turn (agent.session.input.cancel)",
    "environment": "a request to a hosted environment (/agents/environments/...)",
}
_SESSION = re.compile(r"^/agents/sessions/[^/]+/?$")
_EVENTS = re.compile(r"^/agents/sessions/[^/]+/events/?$")
_READS = re.compile(r"^/agents/sessions/[^/]+/(items|turns)(/[^/]+(/items)?)?/?$")
_KINDS = {"agent.session.input.message": "message", "agent.session.input.tool_result": "tool_result",
          "agent.session.input.cancel": "cancel_turn"}


def classify(fake: Any, request: Request, route: str, role_of: RoleOf) -> frozenset[str]:
    method = request.method
    if route.startswith("/agents/environments"):
        return frozenset({"environment"})
    if re.fullmatch(r"/agents/sessions/?", route):
        return frozenset({"create_session"} if method == "POST" else {"list_sessions"} if method == "GET" else ())
    if method == "GET":
        if _SESSION.match(route):
            return frozenset({"read_session"})
        if _EVENTS.match(route):
            return frozenset({"stream"})
        return frozenset({"read_items"}) if _READS.match(route) else frozenset()
    if method != "POST" or not _EVENTS.match(route):
        return frozenset()
    tags = {"input"}
    for event in _events(request):
        verb = _KINDS.get(str(event.get("type")))
        if verb is None:
            continue
        tags.add(verb)
        if verb == "tool_result":
            call = fake.call_record(str(event.get("call_id")))
            if call is not None:
                tags.add(f"tool_result:{call.get('name')}")
                if call.get("role"):
                    tags.add(f"tool_result:{call.get('role')}")
    return frozenset(tags)


def _events(request: Request) -> list[Mapping[str, Any]]:
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        return []
    events = body.get("events") if isinstance(body, dict) else None
    return [e for e in events if isinstance(e, dict)] if isinstance(events, list) else []
