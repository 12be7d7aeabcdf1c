"""The turn engine: how a session's turns start, think on the virtual clock, wait, and end.

An accepted user message starts a turn (``in_progress``, session ``in_progress``) and schedules a
thought ``think_s`` later on the clock. When it falls due the brain thinks over the session's
items and its outputs are appended: reasoning and messages, then either function calls (turn
``waiting``, session ``requires_action``), subagents (``_subagents.SubagentRunner``: the turn stays
``in_progress`` while they work one thinking time, then the agent thinks again over their
reports), a final answer (turn ``completed``), a failure (turn ``failed``, session ``failed``), or
nothing (turn ``completed``). An accepted tool result resolves its required action; when none is
left the turn is ``in_progress`` again and the next thought is scheduled. A cancel ends the active
turn (``cancelled``) and drops any scheduled thought; its unanswered calls become ``incomplete``
and its active subagents are closed.

Work (``RunCommand``/``CaptureArtifact``) is done at once in the session's hosted environment
through the ``Sandbox``; outputs that end with work make the agent think again. A thought that
falls due while the environment is disconnected parks the turn (``waiting``, the session shows
``environment_connection``) until ``unpark``; once the environment expired or failed the turn fails
with ``sandbox_error`` (``fail_active``).

The agent calls only the tools its session declares (``agent.tools``, read when it thinks, so a
``sessions.update`` counts from the next thought). A thought whose calls need a tool the agent
lacks issues none of them: its notes and work stay, and the turn ends with a final answer naming
the missing tools, as a model without the tool would answer. Nothing is recorded as a call.

Every change is reported through ``changed()`` (the mutation counter) and ``emit(type, data)``
with the stream event type it will become once the SSE and webhook layers exist.

What it deliberately does not do: validate events (``_state`` did) or speak HTTP.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from durable_harness.fakes.openai_agents._input_events import ToolResultEvent
from durable_harness.fakes.openai_agents._objects import (
    assistant_message_item,
    function_call_action,
    function_call_item,
    function_call_output_item,
    reasoning_item,
    session_object,
    turn_object,
    user_message_item,
    wire_copy,
)
from durable_harness.fakes.openai_agents._records import Clock, IdSource, Session, Turn
from durable_harness.fakes.openai_agents._sandbox import Sandbox
from durable_harness.fakes.openai_agents._subagents import SubagentRunner
from durable_harness.fakes.openai_agents._tools import declared_tools, undeclared_answer
from durable_harness.fakes.openai_agents._truth import Truth
from durable_harness.fakes.openai_agents.brains import (
    BrainFactory,
    CaptureArtifact,
    Commentary,
    Fail,
    FinalAnswer,
    FunctionCall,
    Output,
    Reasoning,
    RunCommand,
    SpawnSubagent,
    Step,
    ToolResult,
    output_text,
)

MAX_LONGER_THOUGHTS = 20  # a thought held longer lasts at most 21 thinking times (31.5 s at the default 1.5 s)

__all__ = ["TURN_ERROR_CODES", "TurnEngine"]

TURN_ERROR_CODES = frozenset({
    "context_length_exceeded", "max_output_tokens", "session_budget_exceeded", "usage_limit_exceeded",
    "project_spend_limit_exceeded", "organization_spend_limit_exceeded", "organization_usage_limit_exceeded",
    "billing_not_active", "credit_balance_exhausted", "rate_limit_exceeded", "flex_unavailable",
    "server_overloaded", "cyber_policy", "misalignment_policy_violation", "connection_failed", "server_error",
    "authentication_error", "invalid_request", "resource_not_found", "sandbox_error",
    "executor_version_incompatible", "active_turn_not_steerable", "request_timeout", "internal_error",
})

Emit = Callable[[str, Mapping[str, Any]], None]


class TurnEngine:
    def __init__(self, clock: Clock, ids: IdSource, brains: BrainFactory, think_s: float, truth: Truth,
                 changed: Callable[[], None], emit: Emit, *, sandbox: Sandbox | None = None) -> None:
        self._sandbox = sandbox
        self._clock = clock
        self._ids = ids
        self._brains = brains
        self._think_s = think_s
        self._truth = truth
        self._changed = changed
        self._emit = emit
        self._subagents = SubagentRunner(clock, ids, emit, self._add_item)
        # Asked when a thought falls due: True keeps the agent working one thinking time more (at
        # most ``MAX_LONGER_THOUGHTS`` times a thought). The harness sets it while a fault waits for a
        # request made while the agent works, so that every design, polling at its own pace, meets it.
        self.keep_thinking: Callable[[], bool] | None = None
        # Asked too: a number of seconds makes every thought last as many thinking times as fit in
        # it. The harness sets it while a worker process restarts beside the others: its start takes
        # real seconds, and so the run's time, while the job goes on. Slower thoughts make the job
        # last longer, so that it is still under way when the worker is back, while the worker that
        # holds the job still writes within its lease (the bound is half of it).
        self.slow: Callable[[], float | None] | None = None

    # -- commands -----------------------------------------------------------------------------
    def start(self, session: Session, messages: list[list[dict[str, Any]]], text: str) -> Turn:
        now = self._clock.unix()
        turn = Turn(id=self._ids.next("turn"), session_id=session.id, agent_id=session.agent["id"],
                    created_at=now, started_at=now, user_text=text)
        session.turns.append(turn)
        session.user_inputs.append(text)
        session.last_active_at = now
        if session.brain is None:
            session.brain = self._brains(dict(session.metadata), text)
        self._emit("agent.session.turn.created", {"session_id": session.id, "turn": turn_object(turn)})
        for parts in messages:
            self._add_item(session, user_message_item(self._ids.next("item"), turn.id, wire_copy(parts)))
        self._emit_session(session)
        self._schedule(session, turn)
        self._changed()
        return turn

    def accept_result(self, session: Session, turn: Turn, event: ToolResultEvent, *, sent_s: float | None = None) -> None:
        turn.pending.pop(event.call_id)
        call = self._call_item(session, event.call_id)
        call["status"] = "completed" if event.success else "failed"
        self._add_item(session, function_call_output_item(
            self._ids.next("item"), turn.id, event.call_id, success=event.success,
            output=wire_copy(event.output), error=event.error))
        self._truth.call_answered(event.call_id, event.success, self._clock.now(), sent_s=sent_s)
        turn.results.append(ToolResult(call_id=event.call_id, name=str(call["name"]), success=event.success,
                                       output=output_text(event.output) if event.success else None,
                                       error=None if event.success else (event.error or "Tool call failed.")))
        session.last_active_at = self._clock.unix()
        if not turn.pending:
            turn.status = "in_progress"
            self._emit_session(session)
            self._schedule(session, turn)
        self._changed()

    def cancel(self, session: Session) -> bool:
        """Cancel the active turn; False (and no change) when there is none."""
        turn = session.active_turn()
        if turn is None:
            return False
        for call_id in turn.pending:
            self._call_item(session, call_id)["status"] = "incomplete"
        turn.pending.clear()
        turn.results.clear()
        self._end(session, turn, "cancelled")
        self._changed()
        return True

    def next_wakeup(self, sessions: Sequence[Session]) -> float | None:
        due = [s.wake_at for s in sessions if s.wake_at is not None and not s.deleted]
        return min(due) if due else None

    def drop(self, session: Session) -> None:
        """Forget any scheduled thought of a deleted session."""
        session.wake_token += 1
        session.wake_at = None

    # -- the hosted environment (called by ``_environments`` on executor events) ---------------
    def park(self, session: Session) -> None:
        """The environment disconnected: an in-progress turn waits, its scheduled thought dropped."""
        turn = session.active_turn()
        if turn is not None and turn.status == "in_progress":
            turn.status = "waiting"
            session.wake_token += 1
            session.wake_at = None
        self._emit_session(session)
        self._changed()

    def unpark(self, session: Session) -> None:
        """The environment reconnected: a turn parked with no call pending thinks again."""
        turn = session.active_turn()
        if turn is not None and turn.status == "waiting" and not turn.pending:
            turn.status = "in_progress"
            self._schedule(session, turn, subagents=bool(self._subagents.waiting_for(session, turn)))
        self._emit_session(session)
        self._changed()

    def fail_active(self, session: Session, code: str, message: str) -> None:
        """Fail the active turn (and so the session) with ``code``; without one, only report the status."""
        turn = session.active_turn()
        if turn is None:
            self._emit_session(session)
            return
        for call_id in turn.pending:
            self._call_item(session, call_id)["status"] = "incomplete"
        turn.pending.clear()
        turn.error = {"code": code, "message": message}
        session.error = message
        self._end(session, turn, "failed")
        self._changed()

    # -- thinking -----------------------------------------------------------------------------
    def _schedule(self, session: Session, turn: Turn, *, subagents: bool = False) -> None:
        """The next thought of the root agent, or with ``subagents`` the work of its subagents."""
        session.wake_token += 1
        token, turn_id = session.wake_token, turn.id
        session.wake_at = self._clock.now() + self._think_s
        self._clock.call_later(self._think_s, lambda: self._wake(session, turn_id, token, subagents))

    def _slower(self, session: Session) -> bool:
        """Whether this thought lasts one thinking time more while the world asks for slow thoughts."""
        bound = self.slow() if self.slow is not None else None
        return bound is not None and (session.longer_thoughts + 2) * self._think_s <= bound

    def _wake(self, session: Session, turn_id: str, token: int, subagents: bool = False) -> None:
        turn = session.active_turn()
        if session.deleted or token != session.wake_token or turn is None or turn.id != turn_id:
            return
        if turn.status != "in_progress" or session.brain is None:
            return
        if not subagents and session.longer_thoughts < MAX_LONGER_THOUGHTS and (
                self._slower(session) or (self.keep_thinking is not None and self.keep_thinking())):
            session.longer_thoughts += 1
            self._schedule(session, turn)
            return
        session.longer_thoughts = 0
        session.wake_at = None
        if subagents:
            self._subagents.finish(session, turn)
            session.last_active_at = self._clock.unix()
            self._schedule(session, turn)  # the root agent reads its subagents' reports next
            self._changed()
            return
        blocked = self._sandbox.blocked(session) if self._sandbox is not None else None
        if blocked == "wait":
            self.park(session)
            return
        if blocked is not None:
            self.fail_active(session, "sandbox_error", blocked)
            return
        step = Step(session_id=session.id, turn_id=turn.id, items=tuple(wire_copy(session.items)),
                    user_text=turn.user_text, results=tuple(turn.results),
                    environment=self._sandbox.snapshot(session) if self._sandbox is not None else None,
                    artifacts=self._sandbox.artifacts(session) if self._sandbox is not None else ())
        turn.user_text = None
        turn.results = []
        self._apply(session, turn, list(session.brain.think(step)))
        session.last_active_at = self._clock.unix()
        self._changed()

    def _apply(self, session: Session, turn: Turn, outputs: list[Output]) -> None:
        _check_outputs(outputs)
        outputs = _within_declared_tools(outputs, declared_tools(session.agent))
        worked = spawned = False
        for output in outputs:
            if isinstance(output, Reasoning):
                self._add_item(session, reasoning_item(self._ids.next("item"), turn.id, output.text))
            elif isinstance(output, Commentary):
                self._add_item(session, assistant_message_item(self._ids.next("item"), turn.id, output.text,
                                                               "commentary"))
            elif isinstance(output, (RunCommand, CaptureArtifact)):
                worked = True
                if self._sandbox is None:
                    raise ValueError(f"brain output {output!r} needs a hosted environment, but this fake has no "
                                     "executor; build SessionsState with a sandbox")
                for item in self._sandbox.perform(session, turn, output):
                    self._add_item(session, item)
            elif isinstance(output, FunctionCall):
                call_id = self._ids.call_id()
                self._add_item(session, function_call_item(self._ids.next("item"), turn.id, call_id, output.name,
                                                           output.arguments))
                turn.pending[call_id] = function_call_action(turn.id, call_id, output.name, output.arguments)
                self._truth.call_issued(session.id, turn.id, call_id, output, self._clock.now())
            elif isinstance(output, SpawnSubagent):
                spawned = True
                self._subagents.spawn(session, turn, output)
            elif isinstance(output, FinalAnswer):
                self._add_item(session, assistant_message_item(self._ids.next("item"), turn.id, output.text,
                                                               "final_answer"))
            elif isinstance(output, Fail):
                turn.error = {"code": output.code, "message": output.message}
                session.error = output.message
                self._end(session, turn, "failed")
                return
        if turn.pending:
            turn.status = "waiting"
            self._emit_session(session)
        elif spawned:
            self._schedule(session, turn, subagents=True)
        elif worked and not any(isinstance(o, FinalAnswer) for o in outputs):
            self._schedule(session, turn)  # the work is done; the agent looks at its results next
        else:
            self._end(session, turn, "completed")

    # -- helpers ------------------------------------------------------------------------------
    def _end(self, session: Session, turn: Turn, status: str) -> None:
        self._subagents.abandon(session)  # a root turn's subagents do not outlive it
        turn.status = status
        turn.completed_at = self._clock.unix()
        session.wake_token += 1
        session.wake_at = None
        self._emit(f"agent.session.turn.{status}", {"session_id": session.id, "turn": turn_object(turn)})
        self._emit_session(session)

    def _emit_session(self, session: Session) -> None:
        self._emit(f"agent.session.{session.status}", {"session_id": session.id, "session": session_object(session)})

    def _add_item(self, session: Session, item: dict[str, Any]) -> None:
        session.items.append(item)
        self._emit("agent.session.turn.item.added", {"session_id": session.id, "turn_id": item["turn_id"],
                                                     "item": wire_copy(item)})

    @staticmethod
    def _call_item(session: Session, call_id: str) -> dict[str, Any]:
        for item in reversed(session.items):
            if item["type"] == "function_call" and item["call_id"] == call_id:
                found: dict[str, Any] = item
                return found
        raise KeyError(f"no function_call item with call_id={call_id!r} in session {session.id!r}")


def _within_declared_tools(outputs: list[Output], declared: frozenset[str]) -> list[Output]:
    """The outputs, unless their calls need a tool the session's agent does not declare: then the
    notes and work, and a final answer saying which tools are missing instead of any call."""
    missing = sorted({o.name for o in outputs if isinstance(o, FunctionCall) and o.name not in declared})
    if not missing:
        return outputs
    kept: list[Output] = [o for o in outputs if not isinstance(o, FunctionCall)]
    return [*kept, FinalAnswer(undeclared_answer(missing, declared))]


def _check_outputs(outputs: Sequence[Output]) -> None:
    """A brain's outputs: notes and work first, then one ending (calls, subagents, a final answer, or a
    failure)."""
    ending: str | None = None
    for index, output in enumerate(outputs):
        kind = type(output).__name__
        if ending in ("FinalAnswer", "Fail") or (ending in ("FunctionCall", "SpawnSubagent") and kind != ending):
            raise ValueError(f"brain output {index} {output!r} follows a {ending}; outputs must be notes and work "
                             "(Reasoning, Commentary, RunCommand, CaptureArtifact) then one ending (FunctionCall..., "
                             "SpawnSubagent..., FinalAnswer or Fail)")
        if isinstance(output, (FunctionCall, SpawnSubagent, FinalAnswer, Fail)):
            ending = kind
        if isinstance(output, Fail) and output.code not in TURN_ERROR_CODES:
            raise ValueError(f"brain Fail code {output.code!r} is not a SessionTurnError code; use one of "
                             f"{sorted(TURN_ERROR_CODES)!r}")
        if not isinstance(output, (Reasoning, Commentary, RunCommand, CaptureArtifact, FunctionCall, FinalAnswer,
                                   Fail, SpawnSubagent)):
            raise TypeError(f"brain output {index} {output!r} is not a brain Output")
