"""Subagents: what a root agent's ``SpawnSubagent`` does, the subagents API, and their truth.

``SubagentRunner`` is the part of the turn engine that runs subagents. When the root agent spawns
one (a brain's ``SpawnSubagent`` ending), at once:

1. a ``create_subagent_call`` item (``completed``) on the root turn;
2. a ``Subagent`` (``active``) and ``agent.session.subagent.created``;
3. the subagent's turn (``subagent_id`` set; ``in_progress``): ``agent.session.turn.created`` and
   ``agent.session.turn.in_progress``, and its first item, an ``agent_message`` from the root agent
   carrying the instructions.

One thinking time later (``finish``, scheduled by the engine) every subagent of that root turn
does its scripted work: its reasoning and commentary items, then its report as an assistant
message with ``phase: final_answer`` (each with ``turn.item.added``/``done`` on the session's
stream, ``turn_id`` = the subagent's turn), ``agent.session.turn.completed`` with the subagent's
turn, and ``agent.session.subagent.closed``. Then the root turn gets a ``wait_for_subagents_call``
item naming them and one ``agent_message`` per subagent (its report, to the root agent), and the
root agent thinks again. The session stays ``in_progress`` throughout: the root turn is active.
When the root turn ends first (cancel, failure), its subagents' turns are ``cancelled`` and the
subagents closed (``abandon``).

=======  ======================================================================  ==================
GET      /agents/sessions/{session_id}/subagents                                 CursorPage[Subagent]
GET      /agents/sessions/{session_id}/subagents/{subagent_id}                   Subagent
GET      /agents/sessions/{session_id}/subagents/{subagent_id}/items             CursorPage[Item]
GET      /agents/sessions/{session_id}/subagents/{subagent_id}/turns             CursorPage[Turn]
GET      /agents/sessions/{session_id}/subagents/{subagent_id}/turns/{turn_id}   Turn
GET      .../subagents/{subagent_id}/turns/{turn_id}/items                       CursorPage[Item]
=======  ======================================================================  ==================

A subagent's turns and items are its own: the session's ``/items`` and ``/turns`` list the root
agent's only (its ``create_subagent_call``, ``wait_for_subagents_call`` and ``agent_message``
items included), and subagent turn items page as a plain CursorPage, unlike root turn items.

What it deliberately does not do: function calls or work in a subagent, resuming a closed
subagent (``agent.session.subagent.active``), or input sent to a subagent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from durable_harness.fakes._http import Router
from durable_harness.wire import Request, Response, json_response
from durable_harness.fakes.openai_agents._errors import not_found
from durable_harness.fakes.openai_agents._objects import (
    agent_message_item,
    assistant_message_item,
    create_subagent_call_item,
    reasoning_item,
    subagent_object,
    turn_object,
    wait_for_subagents_call_item,
    wire_copy,
)
from durable_harness.fakes.openai_agents._paging import cursor_page, page_query
from durable_harness.fakes.openai_agents._records import Clock, IdSource, Session, Subagent, Turn
from durable_harness.fakes.openai_agents.brains import Commentary, FinalAnswer, Reasoning, SpawnSubagent

if TYPE_CHECKING:
    from durable_harness.fakes.openai_agents._state import SessionsState

__all__ = ["SubagentRunner", "add_subagent_routes", "subagents_truth"]

Emit = Callable[[str, Mapping[str, Any]], None]
AddItem = Callable[[Session, dict[str, Any]], None]


class SubagentRunner:
    """Spawns, finishes and abandons the subagents of root turns (called by the turn engine)."""

    def __init__(self, clock: Clock, ids: IdSource, emit: Emit, add_root_item: AddItem) -> None:
        self._clock = clock
        self._ids = ids
        self._emit = emit
        self._add_root_item = add_root_item

    def spawn(self, session: Session, turn: Turn, output: SpawnSubagent) -> Subagent:
        now, root_agent = self._clock.unix(), str(session.agent["id"])
        self._add_root_item(session, create_subagent_call_item(
            self._ids.next("item"), turn.id, root_agent, output.instructions,
            model=output.model, reasoning_effort=output.reasoning_effort))
        subagent = Subagent(id=self._ids.next("subagent"), session_id=session.id, parent_agent_id=root_agent,
                            name=output.name, instructions=output.instructions, root_turn_id=turn.id,
                            opened_at=now, report=output.report, work=tuple(output.work))
        session.subagents.append(subagent)
        self._emit("agent.session.subagent.created", {"session_id": session.id, "subagent": subagent_object(subagent)})
        own = Turn(id=self._ids.next("turn"), session_id=session.id, agent_id=root_agent, created_at=now,
                   started_at=now, subagent_id=subagent.id)
        subagent.turns.append(own)
        for kind in ("created", "in_progress"):
            self._emit(f"agent.session.turn.{kind}", {"session_id": session.id, "turn": turn_object(own)})
        self._add(session, subagent, agent_message_item(self._ids.next("item"), own.id, root_agent, subagent.id,
                                                        output.instructions))
        return subagent

    def waiting_for(self, session: Session, turn: Turn) -> list[Subagent]:
        """The active subagents root turn ``turn`` spawned, oldest first."""
        return [s for s in session.subagents if s.root_turn_id == turn.id and s.status == "active"]

    def finish(self, session: Session, turn: Turn) -> None:
        """The subagents of ``turn`` do their work, report and close; the root turn gets their reports."""
        done = self.waiting_for(session, turn)
        for subagent in done:
            own = subagent.turns[-1]
            for output in subagent.work:
                item_id = self._ids.next("item")
                if isinstance(output, Reasoning):
                    self._add(session, subagent, reasoning_item(item_id, own.id, output.text))
                elif isinstance(output, Commentary):
                    self._add(session, subagent, assistant_message_item(item_id, own.id, output.text, "commentary"))
                elif isinstance(output, FinalAnswer):
                    self._add(session, subagent, assistant_message_item(item_id, own.id, output.text,
                                                                        "final_answer"))
            subagent.work = ()
            self._end_turn(session, own, "completed")
            self._close(session, subagent)
        if not done:
            return
        root_agent = str(session.agent["id"])
        self._add_root_item(session, wait_for_subagents_call_item(self._ids.next("item"), turn.id, root_agent,
                                                                  [s.id for s in done]))
        for subagent in done:
            self._add_root_item(session, agent_message_item(self._ids.next("item"), turn.id, subagent.id,
                                                            root_agent, subagent.report))

    def abandon(self, session: Session) -> None:
        """The root turn ended first: cancel every active subagent's turn and close the subagent."""
        for subagent in session.subagents:
            if subagent.status != "active":
                continue
            for own in subagent.turns:
                if own.active:
                    self._end_turn(session, own, "cancelled")
            subagent.work = ()
            self._close(session, subagent)

    # -- helpers ------------------------------------------------------------------------------
    def _add(self, session: Session, subagent: Subagent, item: dict[str, Any]) -> None:
        subagent.items.append(item)
        self._emit("agent.session.turn.item.added", {"session_id": session.id, "turn_id": item["turn_id"],
                                                     "item": wire_copy(item)})

    def _end_turn(self, session: Session, turn: Turn, status: str) -> None:
        turn.status = status
        turn.completed_at = self._clock.unix()
        self._emit(f"agent.session.turn.{status}", {"session_id": session.id, "turn": turn_object(turn)})

    def _close(self, session: Session, subagent: Subagent) -> None:
        subagent.status = "closed"
        subagent.closed_at = self._clock.unix()
        self._emit("agent.session.subagent.closed", {"session_id": session.id, "subagent": subagent_object(subagent)})


def subagents_truth(sessions: list[Session]) -> list[dict[str, Any]]:
    """Every subagent ever spawned, in spawn order per session: plain JSON."""
    return [{
        "id": s.id, "session_id": s.session_id, "parent_agent_id": s.parent_agent_id, "name": s.name,
        "root_turn_id": s.root_turn_id, "status": s.status, "opened_at": s.opened_at, "closed_at": s.closed_at,
        "turns": [{"id": t.id, "status": t.status} for t in s.turns], "report": s.report,
    } for session in sessions for s in session.subagents]


# -- routes -------------------------------------------------------------------------------------
def add_subagent_routes(router: Router, state: SessionsState) -> None:
    base = "/agents/sessions/{session_id}/subagents"

    def subagent(session_id: str, subagent_id: str) -> Subagent:
        found = state.session(session_id).subagent(subagent_id)
        if found is None:
            raise not_found(f"No subagent found with id {subagent_id!r} in session {session_id!r}.",
                            param="subagent_id")
        return found

    def turn(session_id: str, subagent_id: str, turn_id: str) -> Turn:
        found = subagent(session_id, subagent_id).turn(turn_id)
        if found is None:
            raise not_found(f"No turn found with id {turn_id!r} for subagent {subagent_id!r} in session "
                            f"{session_id!r}.", param="turn_id")
        return found

    def list_subagents(request: Request, session_id: str) -> Response:
        records = state.session(session_id).subagents
        return json_response(200, cursor_page(records, page_query(request), key=_id, render=subagent_object))

    def retrieve(request: Request, session_id: str, subagent_id: str) -> Response:
        return json_response(200, subagent_object(subagent(session_id, subagent_id)))

    def items(request: Request, session_id: str, subagent_id: str) -> Response:
        records = subagent(session_id, subagent_id).items
        return json_response(200, cursor_page(records, page_query(request), key=_item_id, render=dict))

    def turns(request: Request, session_id: str, subagent_id: str) -> Response:
        records = subagent(session_id, subagent_id).turns
        return json_response(200, cursor_page(records, page_query(request), key=_id, render=turn_object))

    def retrieve_turn(request: Request, session_id: str, subagent_id: str, turn_id: str) -> Response:
        return json_response(200, turn_object(turn(session_id, subagent_id, turn_id)))

    def turn_items(request: Request, session_id: str, subagent_id: str, turn_id: str) -> Response:
        wanted = turn(session_id, subagent_id, turn_id).id
        records = [i for i in subagent(session_id, subagent_id).items if i["turn_id"] == wanted]
        return json_response(200, cursor_page(records, page_query(request), key=_item_id, render=dict))

    router.add("GET", base, list_subagents)
    router.add("GET", base + "/{subagent_id}", retrieve)
    router.add("GET", base + "/{subagent_id}/items", items)
    router.add("GET", base + "/{subagent_id}/turns", turns)
    router.add("GET", base + "/{subagent_id}/turns/{turn_id}", retrieve_turn)
    router.add("GET", base + "/{subagent_id}/turns/{turn_id}/items", turn_items)


def _id(record: Subagent | Turn) -> str:
    return record.id


def _item_id(item: dict[str, Any]) -> str | None:
    value = item.get("id")
    return value if isinstance(value, str) else None
