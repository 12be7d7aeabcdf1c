"""The sessions state machine: sessions, turns, items, required actions, idempotency keys, truth.

Synchronous and in-memory; time comes from the injected clock and randomness from the injected
``random.Random``. Commands validate against the current state *before* changing anything, so a
rejected request commits nothing and a batch of input events is applied all or nothing.
``mutations()`` counts committed state changes, thoughts of the agent included (they happen on
clock timers, which the gate fires before it handles the next request).

Input events (``POST /agents/sessions/{id}/events``):

* ``agent.session.input.message`` starts a turn; 400 while a turn is active or the session failed.
* ``agent.session.input.tool_result`` answers a pending call of that turn; otherwise 400
  ``Unknown pending tool call: <call_id>`` with ``code: "invalid_request_error"`` (the SDK's race).
* ``agent.session.input.cancel`` cancels the active turn; with no active turn it is accepted and
  changes nothing.
* Approval results are refused (this fake never asks for approvals).

``Idempotency-Key``: the key of an *accepted* request is remembered with a digest of (session,
body). The same key with the same body is accepted again (202) and changes nothing; the same key
with a different body is a 400 ``idempotency_key_reused`` (400, not 409: the SDK retries 409, and no
retry can fix a reused key). Keys of rejected requests are not remembered, so the SDK's retry of
the "Unknown pending tool call" race with the same key goes through.

What it deliberately does not do: HTTP, authentication, streaming (events are emitted to
``subscribe``rs for the SSE and webhook layers to come), or environments (``_environments``,
``_sandbox`` and ``_artifacts`` hold them; ``executor`` is the sandbox executor behind them).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from durable_harness.fakes.executor import Executor
from durable_harness.fakes.openai_agents._artifacts import Artifacts
from durable_harness.fakes.openai_agents._environments import Environments
from durable_harness.fakes.openai_agents._errors import bad_request, not_found, unknown_pending_tool_call
from durable_harness.fakes.openai_agents._input_events import ApprovalEvent, CancelEvent, InputEvent, MessageEvent, ToolResultEvent
from durable_harness.fakes.openai_agents._inputs import DEFAULT_MODEL, CreateSpec, UpdateSpec, text_of
from durable_harness.fakes.openai_agents._objects import agent_object, session_object, user_message_item
from durable_harness.fakes.openai_agents._records import Clock, IdSource, Session, Turn
from durable_harness.fakes.openai_agents._sandbox import Sandbox
from durable_harness.fakes.openai_agents._subagents import subagents_truth
from durable_harness.fakes.openai_agents._truth import Truth
from durable_harness.fakes.openai_agents._turns import Emit, TurnEngine
from durable_harness.fakes.openai_agents.brains import BrainFactory

__all__ = ["SessionsState"]


class SessionsState:
    def __init__(self, clock: Clock, rng: random.Random, brains: BrainFactory, think_s: float,
                 executor: Executor | None = None) -> None:
        if not isinstance(think_s, (int, float)) or think_s < 0:
            raise ValueError(f"think_s={think_s!r} must be a number of virtual seconds >= 0")
        self._clock = clock
        self.ids = IdSource(rng)
        self._truth = Truth()
        self._sessions: dict[str, Session] = {}
        self._idempotency: dict[str, str] = {}
        self._mutations = 0
        self._listeners: list[Emit] = []
        self.executor = executor if executor is not None else Executor(clock, _peeked_random(rng))
        self.artifacts = Artifacts(clock, self.ids, self._changed)
        self.environments = Environments(clock, self.ids, self.executor, self._changed, self._emit)
        self._engine = TurnEngine(clock, self.ids, brains, float(think_s), self._truth, self._changed, self._emit,
                                  sandbox=Sandbox(self.ids, self.executor, self.artifacts))
        self.executor.subscribe(lambda event: self.environments.on_event(event, self._engine))

    # -- observation --------------------------------------------------------------------------
    def mutations(self) -> int:
        return self._mutations

    def subscribe(self, listener: Emit) -> None:
        """Call ``listener(event_type, data)`` on every lifecycle change (for SSE and webhooks)."""
        self._listeners.append(listener)

    def next_wakeup(self) -> float | None:
        """Virtual time at which some agent next finishes thinking, or None."""
        return self._engine.next_wakeup(list(self._sessions.values()))

    def _changed(self) -> None:
        self._mutations += 1

    def _emit(self, type_: str, data: Mapping[str, Any]) -> None:
        for listener in self._listeners:
            listener(type_, data)

    def hold_thoughts(self, keep_thinking: Callable[[], bool] | None,
                      slow: Callable[[], float | None] | None = None) -> None:
        self._engine.keep_thinking = keep_thinking
        self._engine.slow = slow

    # -- queries ------------------------------------------------------------------------------
    def call_record(self, call_id: str) -> Mapping[str, Any] | None:
        """What ground truth knows of a function call ever issued (tool ``name``, ``role``, job), or None."""
        return self._truth.call(call_id)

    def payload_owner(self, sha256: str) -> Mapping[str, Any] | None:
        """Whose business payload these bytes are (job, version, role), or None."""
        return self._truth.payloads.get(sha256)

    def session(self, session_id: str) -> Session:
        session = self._sessions.get(session_id)
        if session is None or session.deleted:
            raise not_found(f"No session found with id {session_id!r}.", param="session_id")
        return session

    def sessions(self, *, metadata: Mapping[str, str] | None = None, agent_id: str | None = None) -> list[Session]:
        """Live sessions, oldest first, filtered by exact metadata pairs and agent id."""
        wanted = dict(metadata or {})
        return [s for s in self._sessions.values()
                if not s.deleted and all(s.metadata.get(k) == v for k, v in wanted.items())
                and (agent_id is None or s.agent["id"] == agent_id)]

    def turn(self, session_id: str, turn_id: str) -> Turn:
        turn = self.session(session_id).turn(turn_id)
        if turn is None:
            raise not_found(f"No turn found with id {turn_id!r} in session {session_id!r}.", param="turn_id")
        return turn

    def turn_items(self, session_id: str, turn_id: str) -> list[dict[str, Any]]:
        turn = self.turn(session_id, turn_id)
        return [item for item in self.session(session_id).items if item["turn_id"] == turn.id]

    # -- commands -----------------------------------------------------------------------------
    def create(self, spec: CreateSpec) -> Session:
        now = self._clock.unix()
        agent_spec = dict(spec.agent or {})
        agent_spec.setdefault("model", DEFAULT_MODEL)
        agent_id = spec.agent_id or self.ids.next("agent")
        environment = self.environments.provision(spec.environment)  # validates before anything changes
        session = Session(id=self.ids.next("sess"), created_at=now, last_active_at=now,
                          agent=agent_object(agent_id, agent_spec, list(agent_spec.get("tools") or [])),
                          environment=environment, metadata=dict(spec.metadata),
                          vault_ids=list(spec.vault_ids), options=dict(spec.options))
        self._sessions[session.id] = session
        self._changed()
        self._emit("agent.session.created", {"session_id": session.id, "session": session_object(session)})
        self.environments.attach(session)
        if spec.messages is not None:
            self._engine.start(session, spec.messages, text_of(spec.messages))
        return session

    def update(self, session_id: str, spec: UpdateSpec) -> Session:
        session = self.session(session_id)
        if spec.metadata is not None:
            session.metadata = dict(spec.metadata)
        for key, value in (spec.agent or {}).items():
            if key == "reasoning":
                session.agent["reasoning"] = {**session.agent["reasoning"], **(value or {})}
            elif key in ("model", "instructions", "tools"):
                session.agent[key] = value
            elif key == "service_tier":
                session.agent[key] = value or "auto"
        session.options.update(spec.options)
        self._changed()
        return session

    def delete(self, session_id: str) -> None:
        session = self.session(session_id)
        if session.status == "in_progress":
            raise bad_request(f"Session {session_id!r} has a turn in progress; cancel it first with an "
                              "agent.session.input.cancel event, then delete.", param="session_id")
        self._engine.cancel(session)  # a turn waiting for tool results is abandoned
        self._engine.drop(session)
        session.deleted = True
        self._changed()

    def submit(self, session_id: str, events: Sequence[InputEvent], *, body: Any,
               idempotency_key: str | None, sent_s: float | None = None) -> bool:
        """Apply a batch of input events; False when it replays an accepted Idempotency-Key.
        ``sent_s``: when the request reached the world (the truth of a tool result records it)."""
        session = self.session(session_id)
        fingerprint = hashlib.sha256(json.dumps([session_id, body], sort_keys=True).encode()).hexdigest()
        if idempotency_key is not None:
            seen = self._idempotency.get(idempotency_key)
            if seen == fingerprint:
                return False
            if seen is not None:
                raise bad_request(f"Idempotency-Key {idempotency_key!r} was already used with a different request; "
                                  "use a new key for a new request.", code="idempotency_key_reused")
        self._check(session, events)
        for event in events:
            if isinstance(event, MessageEvent):
                self._engine.start(session, event.messages, text_of(event.messages))
            elif isinstance(event, ToolResultEvent):
                turn = session.turn(event.turn_id)
                assert turn is not None  # _check proved the call pending in this turn
                self._engine.accept_result(session, turn, event, sent_s=sent_s)
            elif isinstance(event, CancelEvent):
                self._engine.cancel(session)
        if idempotency_key is not None:
            self._idempotency[idempotency_key] = fingerprint
        return True

    def _check(self, session: Session, events: Sequence[InputEvent]) -> None:
        """Dry-run the batch against a model of the session; raise at the first event it refuses."""
        turn = session.active_turn()
        active = turn is not None
        pending = {(turn.id, call_id) for call_id in turn.pending} if turn is not None else set()
        for index, event in enumerate(events):
            if isinstance(event, MessageEvent):
                if session.error is not None:
                    raise bad_request(f"Session {session.id!r} has failed ({session.error}); it accepts no new "
                                      "input. Start a new session.", param=f"events[{index}]")
                if active:
                    current = session.active_turn()
                    shown = f"turn {current.id!r} ({current.status})" if current is not None else "a turn"
                    raise bad_request(f"Session {session.id!r} already has an active {shown}; answer its required "
                                      "actions or cancel it before sending a new message.",
                                      param=f"events[{index}]")
                active, pending = True, set()
            elif isinstance(event, ToolResultEvent):
                if (event.turn_id, event.call_id) not in pending:
                    raise unknown_pending_tool_call(event.call_id)
                pending.discard((event.turn_id, event.call_id))
            elif isinstance(event, CancelEvent):
                active, pending = False, set()
            elif isinstance(event, ApprovalEvent):
                raise bad_request(f"Unknown pending approval request: {event.request_id}",
                                  code="invalid_request_error", param=f"events[{index}].request_id")

    # -- harness-side helpers -----------------------------------------------------------------
    def append_legacy_user_message(self, session_id: str, text: str) -> None:
        """Record a user message with a null id in the latest turn, as legacy sessions have them."""
        session = self._sessions.get(session_id)
        if session is None or not session.turns:
            raise ValueError(f"append_legacy_user_message: session {session_id!r} is unknown or has no turn yet; "
                             "create it with input first")
        session.items.append(user_message_item(None, session.turns[-1].id, [{"type": "input_text", "text": text}]))
        self._changed()

    def truth(self) -> dict[str, Any]:
        sessions = [{
            "id": s.id,
            "metadata": dict(sorted(s.metadata.items())),
            "status": s.status,
            "deleted": s.deleted,
            "created_at": s.created_at,
            "turns": len(s.turns),
            "last_turn_status": s.turns[-1].status if s.turns else None,
            "user_inputs": list(s.user_inputs),
        } for s in self._sessions.values()]
        return {"sessions": sessions, **self._truth.snapshot(),
                "subagents": subagents_truth(list(self._sessions.values())),
                "environments": self.environments.truth(), "artifacts": self.artifacts.truth(),
                "executor": self.executor.truth()}


def _peeked_random(rng: random.Random) -> random.Random:
    """A stream seeded from ``rng``'s next draw, without advancing ``rng`` (ids stay as they were)."""
    state = rng.getstate()
    seed = rng.getrandbits(64)
    rng.setstate(state)
    return random.Random(seed)
