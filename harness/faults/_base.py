"""What every fault kind shares: a trigger on the live traffic and actions at the gate.

A fault fires at a precise point of one request: ``before`` it is delivered to the fake,
``after`` the fake answered (and so possibly committed) but before the response leaves, or in the
``stream`` of a streamed response, after its k-th event. The gate asks each armed fault at each
point; the first that returns an action wins.

Fault kinds are registered by name (one module each, see ``_registry``); a scenario names them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakes import Request, Response

__all__ = ["Action", "Crash", "Cut", "Drop", "Duplicate", "Effect", "FaultContext", "Lose", "Respond", "Trigger"]


@dataclass(frozen=True)
class Trigger:
    """Matches the n-th request (1-based) to ``service`` with ``method`` on ``route``.

    ``route`` is the path below the service's root (``/wp/v2/posts``, ``/agents/sessions/{id}``);
    ``{name}`` matches one path segment. ``*`` as service, method or route matches anything (the
    crash-point sweep counts every request). ``times`` consecutive matches fire, starting at ``nth``.
    """

    service: str
    method: str
    route: str
    nth: int = 1
    times: int = 1

    def pattern(self) -> re.Pattern[str]:
        if self.route == "*":
            return re.compile("")
        return re.compile("^" + re.sub(r"\\\{\w+\\\}", r"[^/]+", re.escape(self.route)) + "/?$")

    def describe(self) -> str:
        return f"{self.method} {self.service}{self.route} #{self.nth}" + (f" x{self.times}" if self.times > 1 else "")


@dataclass
class FaultContext:
    """What a fault sees of one request at the gate."""

    service: str
    route: str
    request: Request
    process: str
    op: int
    response: Response | None = None
    committed: bool = False


class Action:
    """Base of what a fault tells the gate to do."""


@dataclass(frozen=True)
class Respond(Action):
    """Answer with ``response`` without delivering the request (nothing is committed)."""

    response: Response


@dataclass(frozen=True)
class Drop(Action):
    """The connection fails before delivery: ``kind`` is ``connect`` or ``reset``."""

    kind: str = "connect"


@dataclass(frozen=True)
class Lose(Action):
    """The fake has answered; the response never arrives: ``timeout`` (after ``wait_s``) or ``reset``."""

    kind: str = "timeout"
    wait_s: float = 30.0


@dataclass(frozen=True)
class Cut(Action):
    """A streamed (SSE) response is cut after ``after_events`` complete events: a clean ``eof`` or a
    ``reset`` mid-stream (the client sees a truncated body). Nothing missed is replayed."""

    after_events: int
    mode: str = "reset"


@dataclass(frozen=True)
class Duplicate(Action):
    """Events number ``events`` (1-based) of a streamed response are delivered twice (at-least-once)."""

    events: tuple[int, ...]


@dataclass(frozen=True)
class Effect(Action):
    """Do something to the world (``name`` is one of the World's effects, e.g. ``replace_executor``),
    then deliver the request as usual."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Crash(Action):
    """The candidate process dies here (in-process: ``CandidateCrashed`` is raised)."""


@dataclass
class FaultState:
    """What a fault keeps while armed. ``evidence`` is what proves each firing took effect; a
    firing is counted only by its evidence (one request, ``op``, may carry several pieces, e.g. each
    event a stream delivered twice), so a fault that was due but acted on nothing never counts."""

    seen: int = 0
    evidence: list[Mapping[str, Any]] = field(default_factory=list)

    @property
    def fired(self) -> int:
        return len({e.get("op") for e in self.evidence})
