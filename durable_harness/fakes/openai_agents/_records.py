"""The records the sessions state machine keeps: a session, its turns and its subagents.

Items are kept as wire dicts (built by ``_objects``) because the brain reads them as the candidate
does; sessions and turns are mutable records rendered on demand. A session's ``status`` and
``required_actions`` are derived from its turns, never stored, so they cannot disagree:

* ``failed`` once ``error`` is set;
* ``requires_action`` while the hosted environment is disconnected (``environment_connection``);
* ``requires_action`` while the active turn is ``waiting`` for tool results;
* ``in_progress`` while the active turn is ``queued``/``in_progress`` (the agent is thinking);
* ``idle`` otherwise.

A subagent keeps its own turns (``subagent_id`` set) and items, apart from the root agent's:
``Session.turns`` and ``Session.items`` are the root agent's only, so a subagent's turn never
becomes the session's active turn.

Ids are deterministic: counters per kind (``sess_0001``, ``turn_0001``, ``item_000001``,
``subagent_0001``) and opaque call ids drawn from the fake's own ``random.Random`` (``call_<24 hex>``).

What it deliberately does not do: validate input or change state on its own (``_state`` does).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from durable_harness.fakes.openai_agents.brains import Brain, Commentary, FinalAnswer, Reasoning, ToolResult

__all__ = ["ACTIVE_TURN", "Clock", "IdSource", "Session", "Subagent", "Turn"]

ACTIVE_TURN = frozenset({"queued", "in_progress", "waiting"})
_R = TypeVar("_R", "Turn", "Subagent")


class Clock(Protocol):
    """What the fake needs of the run's virtual clock (``durable_harness.harness.VirtualClock`` fits)."""

    def now(self) -> float: ...
    def unix(self) -> int: ...
    def call_later(self, delay_s: float, fire: Callable[[], None]) -> None: ...


class IdSource:
    """Deterministic ids for one fake."""

    _WIDTH = {"item": 6, "evt": 6}

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._counters: dict[str, int] = {}

    def next(self, prefix: str) -> str:
        n = self._counters.get(prefix, 0) + 1
        self._counters[prefix] = n
        return f"{prefix}_{n:0{self._WIDTH.get(prefix, 4)}d}"

    def call_id(self) -> str:
        return f"call_{self._rng.getrandbits(96):024x}"


@dataclass
class Turn:
    id: str
    session_id: str
    agent_id: str
    created_at: int
    started_at: int | None = None
    completed_at: int | None = None
    status: str = "in_progress"
    error: dict[str, str] | None = None
    subagent_id: str | None = None              # None: a turn of the root agent
    # call_id -> the session's required action for it, while the call is unanswered.
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)
    # What the brain has not yet seen: the user text that started the turn, results since.
    user_text: str | None = None
    results: list[ToolResult] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_TURN


@dataclass
class Subagent:
    """A subagent the root agent spawned in one of its turns (``root_turn_id``)."""

    id: str
    session_id: str
    parent_agent_id: str
    name: str
    instructions: str
    root_turn_id: str
    opened_at: int
    report: str                                 # the final answer its scripted work ends with
    work: tuple[Reasoning | Commentary | FinalAnswer, ...] = ()  # the outputs of its turn, not yet done
    status: str = "active"
    closed_at: int | None = None
    turns: list[Turn] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)

    def turn(self, turn_id: str) -> Turn | None:
        return _by_id(self.turns, turn_id)


@dataclass
class Session:
    id: str
    created_at: int
    last_active_at: int
    agent: dict[str, Any]
    environment: dict[str, Any]
    metadata: dict[str, str]
    vault_ids: list[str]
    options: dict[str, Any]                     # prompt_cache_options, review, spend_control
    items: list[dict[str, Any]] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    user_inputs: list[str] = field(default_factory=list)
    error: str | None = None
    brain: Brain | None = None
    wake_token: int = 0                         # bumps to invalidate a scheduled thought
    wake_at: float | None = None                # virtual time of the next thought, if any
    longer_thoughts: int = 0                    # times the current thought was held one thinking time more
    deleted: bool = False
    # ``environment_connection{environment_id}`` while the hosted environment is disconnected.
    environment_action: dict[str, Any] | None = None
    subagents: list[Subagent] = field(default_factory=list)

    def active_turn(self) -> Turn | None:
        if self.turns and self.turns[-1].active:
            return self.turns[-1]
        return None

    @property
    def status(self) -> str:
        if self.error is not None:
            return "failed"
        if self.environment_action is not None:
            return "requires_action"
        turn = self.active_turn()
        if turn is None:
            return "idle"
        return "requires_action" if turn.status == "waiting" else "in_progress"

    def required_actions(self) -> list[dict[str, Any]]:
        turn = self.active_turn()
        actions = list(turn.pending.values()) if turn is not None and turn.status == "waiting" else []
        return actions + ([dict(self.environment_action)] if self.environment_action is not None else [])

    def turn(self, turn_id: str) -> Turn | None:
        return _by_id(self.turns, turn_id)

    def subagent(self, subagent_id: str) -> Subagent | None:
        return _by_id(self.subagents, subagent_id)


def _by_id(records: list[_R], record_id: str) -> _R | None:
    """The first record whose ``id`` is ``record_id``, or None."""
    return next((record for record in records if record.id == record_id), None)
