"""HTTP routes of the sessions fake: translate ``Request`` -> state machine -> ``Response``.

Paths are below the service root (``/v1``), as the SDK builds them from ``base_url``:

=======  ===============================================  ==========================================
POST     /agents/sessions                                 create -> AgentSession (root turn if input),
                                                          or its SSE stream with ``stream: true``
GET      /agents/sessions                                 CursorPage[AgentSession] (metadata[k]=v)
GET      /agents/sessions/{session_id}                    AgentSession
POST     /agents/sessions/{session_id}                    update -> AgentSession
DELETE   /agents/sessions/{session_id}                    AgentSessionDeleted
POST     /agents/sessions/{session_id}/events             input events -> 202, empty body
GET      /agents/sessions/{session_id}/events             the live SSE stream (``_sse``)
GET      /agents/sessions/{session_id}/items              CursorPage[AgentSessionItem]
GET      /agents/sessions/{session_id}/turns              CursorPage[Turn]
GET      /agents/sessions/{session_id}/turns/{turn_id}    Turn
GET      /agents/sessions/{session_id}/turns/{id}/items   ConversationCursorPage[AgentSessionItem]
=======  ===============================================  ==========================================

Artifacts (``.../artifacts[/{artifact_id}[/content]]``), subagents (``.../subagents[/{subagent_id}
[/items|/turns[/{turn_id}[/items]]]]``) and the environments API
(``/agents/environments[/{environment_id}[/files]]``) are routed by ``_artifacts``, ``_subagents``
and ``_environment_routes``.

What it deliberately does not do: authentication and the beta header (``_service`` checks them
first), or produce stream events (``_sse.EventStreams`` does; the routes only open streams).
"""

from __future__ import annotations

import re
from typing import Any

from durable_harness.fakes._http import Router
from durable_harness.wire import Request, Response, json_response
from durable_harness.fakes.openai_agents._artifacts import add_artifact_routes
from durable_harness.fakes.openai_agents._environment_routes import add_environment_routes
from durable_harness.fakes.openai_agents._errors import ApiError, bad_request
from durable_harness.fakes.openai_agents._input_events import parse_events
from durable_harness.fakes.openai_agents._inputs import parse_create, parse_update
from durable_harness.fakes.openai_agents._objects import deleted_object, session_object, turn_object
from durable_harness.fakes.openai_agents._paging import conversation_page, cursor_page, page_query
from durable_harness.fakes.openai_agents._records import Session, Turn
from durable_harness.fakes.openai_agents._sse import EventStreams, query_flag, stream_flags
from durable_harness.fakes.openai_agents._state import SessionsState
from durable_harness.fakes.openai_agents._subagents import add_subagent_routes

__all__ = ["build_router"]

_METADATA_QUERY = re.compile(r"^metadata\[(.+)\]$")


def build_router(state: SessionsState, root: str, *, streams: EventStreams) -> Router:
    routes = _Routes(state, streams)

    def invalid_url(request: Request) -> Response:
        return ApiError(404, f"Invalid URL ({request.method} {root}{request.path})").response()

    router = Router(not_found=invalid_url, bad_method=invalid_url)
    router.add("POST", "/agents/sessions", routes.create)
    router.add("GET", "/agents/sessions", routes.list_sessions)
    router.add("GET", "/agents/sessions/{session_id}", routes.retrieve)
    router.add("POST", "/agents/sessions/{session_id}", routes.update)
    router.add("DELETE", "/agents/sessions/{session_id}", routes.delete)
    router.add("POST", "/agents/sessions/{session_id}/events", routes.submit_events)
    router.add("GET", "/agents/sessions/{session_id}/events", routes.stream_events)
    router.add("GET", "/agents/sessions/{session_id}/items", routes.items)
    router.add("GET", "/agents/sessions/{session_id}/turns", routes.turns)
    router.add("GET", "/agents/sessions/{session_id}/turns/{turn_id}", routes.turn)
    router.add("GET", "/agents/sessions/{session_id}/turns/{turn_id}/items", routes.turn_items)
    add_artifact_routes(router, state, state.artifacts)
    add_subagent_routes(router, state)
    add_environment_routes(router, state.environments)
    return router


def _body(request: Request) -> Any:
    try:
        return request.json()
    except ValueError:
        raise bad_request("We could not parse the JSON body of your request. (HINT: This likely means you aren't "
                          "using your HTTP library correctly. The OpenAI API expects a JSON payload.)") from None


def _item_id(item: dict[str, Any]) -> str | None:
    value = item.get("id")
    return value if isinstance(value, str) else None


class _Routes:
    def __init__(self, state: SessionsState, streams: EventStreams) -> None:
        self._state = state
        self._streams = streams

    # -- sessions -----------------------------------------------------------------------------
    def create(self, request: Request) -> Response:
        body = _body(request)
        spec = parse_create(body)
        stream, obfuscate = stream_flags(body)
        if stream:
            return self._streams.create(lambda: self._state.create(spec), include_obfuscation=obfuscate)
        session = self._state.create(spec)
        return json_response(200, session_object(session))

    def list_sessions(self, request: Request) -> Response:
        query = page_query(request)
        metadata = {m.group(1): v for k, v in request.query if (m := _METADATA_QUERY.match(k))}
        sessions = self._state.sessions(metadata=metadata, agent_id=request.arg("agent_id") or None)

        def session_id(session: Session) -> str:
            return session.id

        return json_response(200, cursor_page(sessions, query, key=session_id, render=session_object))

    def retrieve(self, request: Request, session_id: str) -> Response:
        return json_response(200, session_object(self._state.session(session_id)))

    def update(self, request: Request, session_id: str) -> Response:
        session = self._state.update(session_id, parse_update(_body(request)))
        return json_response(200, session_object(session))

    def delete(self, request: Request, session_id: str) -> Response:
        self._state.delete(session_id)
        return json_response(200, deleted_object(session_id))

    # -- events -------------------------------------------------------------------------------
    def submit_events(self, request: Request, session_id: str) -> Response:
        self._state.session(session_id)  # 404 before body errors, as the API resolves the path first
        body = _body(request)
        events = parse_events(body)
        key = request.header("idempotency-key") or None
        self._state.submit(session_id, events, body=body, idempotency_key=key, sent_s=request.sent_s)
        return Response(status=202)

    def stream_events(self, request: Request, session_id: str) -> Response:
        self._state.session(session_id)  # 404 before query errors
        obfuscate = query_flag(request, "include_obfuscation", True)
        return self._streams.follow(session_id, include_obfuscation=obfuscate)

    # -- items and turns ----------------------------------------------------------------------
    def items(self, request: Request, session_id: str) -> Response:
        session = self._state.session(session_id)
        query = page_query(request)
        return json_response(200, cursor_page(session.items, query, key=_item_id, render=dict))

    def turns(self, request: Request, session_id: str) -> Response:
        session = self._state.session(session_id)
        query = page_query(request)

        def turn_id(turn: Turn) -> str:
            return turn.id

        return json_response(200, cursor_page(session.turns, query, key=turn_id, render=turn_object))

    def turn(self, request: Request, session_id: str, turn_id: str) -> Response:
        return json_response(200, turn_object(self._state.turn(session_id, turn_id)))

    def turn_items(self, request: Request, session_id: str, turn_id: str) -> Response:
        items = self._state.turn_items(session_id, turn_id)
        query = page_query(request)
        return json_response(200, conversation_page(items, query, key=_item_id, render=dict))
