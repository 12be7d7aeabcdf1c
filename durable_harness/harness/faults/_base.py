"""What every fault kind shares: a trigger on the live traffic and actions at the gate.

A fault fires at a precise point of one request: ``before`` it is delivered to the fake,
``after`` the fake answered (and so possibly committed) but before the response leaves, or in the
``stream`` of a streamed response, after its k-th event. The gate asks each armed fault at each
point; the first that returns an action wins.

Fault kinds are registered by name (one module each, see ``_registry``); a scenario names them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from durable_harness.wire import Request, Response

__all__ = ["Action", "Crash", "Cut", "Drop", "Duplicate", "Effect", "FaultContext", "Lose", "Respond", "Rewrite",
           "Skip", "Trigger"]


@dataclass(frozen=True)
class Trigger:
    """Matches the candidate's requests to ``service`` that do ``target`` to the world, or that go
    with ``method`` to ``route``; fires from the ``nth`` (1-based) such request on, until it has
    fired ``times`` times (``times=None``: on every match from ``nth`` on, ``times: all``).

    ``target`` names what a request does, whatever its ordinal among the candidate's requests:
    ``update:article`` (a write to the job's article), ``upload:image:2`` (the upload of image 2's
    bytes), ``tool_result:wp_create_draft``; the service classifies each request (``verb`` or
    ``verb:object``) and says which targets it offers. ``route`` is the path below the service's root
    (``/wp/v2/posts``, ``/agents/sessions/{id}``); ``{name}`` matches one path segment. ``*`` as
    service, method or route matches anything (the crash-point sweep counts every request).

    The requests that match service, method and route (and, with a target, do its verb to any
    object) are the fault's *channel*. ``condition`` (``while:`` in a scenario, e.g.
    ``agent_working``) narrows the matches to those made while a condition of the world holds;
    ``nth`` counts only those. A fault whose channel the candidate never used was not exercised;
    one for which the candidate never made the request it waits for was not reached; one that met
    its request and could not act on it did not fire.
    """

    service: str
    method: str = "*"
    route: str = "*"
    nth: int = 1
    times: int | None = 1
    condition: str | None = None
    target: str | None = None

    def pattern(self) -> re.Pattern[str]:
        if self.route == "*":
            return re.compile("")
        return re.compile("^" + re.sub(r"\\\{\w+\\\}", r"[^/]+", re.escape(self.route)) + "/?$")

    @property
    def verb(self) -> str | None:
        """The target's verb (``update`` of ``update:article``): its channel."""
        return None if self.target is None else self.target.split(":", 1)[0]

    def channel(self) -> str:
        if self.target is not None:
            where = "" if (self.method, self.route) == ("*", "*") else f" {self.method} {self.route}"
            return f"{self.service} {self.verb}{where}"
        return f"{self.method} {self.service} {self.route}"

    def describe(self) -> str:
        times = " x all" if self.times is None else (f" x{self.times}" if self.times > 1 else "")
        when = f" while {self.condition}" if self.condition else ""
        if self.target is not None:
            where = "" if (self.method, self.route) == ("*", "*") else f" ({self.method} {self.route})"
            return f"{self.service} {self.target}{where} #{self.nth}{times}{when}"
        return f"{self.method} {self.service}{self.route} #{self.nth}{times}{when}"


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
    # Whether a named condition of the world holds now (``agent_working``, ``tool_call_pending:NAME``).
    condition: Callable[[str], bool] = field(default=lambda _name: False)
    # How the service (or the host in front of it) answers an injected error status.
    error_response: Callable[[int, Mapping[str, str]], Response] | None = None
    now_s: float = 0.0  # the run's virtual time when the request arrived
    now_unix: int = 0  # the same instant as Unix seconds (as the services stamp their objects)
    # What the request does to the world, as its service classifies it (``update``,
    # ``update:article``): asked only when a trigger names a target, and at most once a request.
    classify: Callable[[], frozenset[str]] = field(default=lambda: frozenset())
    # The service's answer to another read (a GET with other query parameters), straight from the
    # service, recorded nowhere: what a fault needs to make a consistent answer (a lagging listing
    # fills its page from the next one). None where there is no service to ask.
    read_again: Callable[[Request], Response] | None = None
    _tags: frozenset[str] | None = None

    def does(self) -> frozenset[str]:
        """The targets this request meets (its service's classification, computed once)."""
        if self._tags is None:
            self._tags = self.classify()
        return self._tags


class Action:
    """Base of what a fault tells the gate to do."""


@dataclass(frozen=True)
class Skip(Action):
    """This request was no chance for the fault: it only watched it (a read that an input it waits
    for has not yet preceded). Nothing happens; unlike ``None`` (a chance it could not act on), a
    skip does not count against the fault."""


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
class Rewrite(Action):
    """The service answered; the client receives ``response`` instead (a stale or lagging read, a
    listing that does not show everything yet). ``evidence`` says what differs; a fault with
    nothing to change returns None instead, and so does not fire."""

    response: Response
    evidence: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Effect(Action):
    """Do something to the world (``name`` is one of the World's effects, e.g. ``replace_executor``),
    then deliver the request as usual."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Crash(Action):
    """The candidate process dies here (in-process: ``CandidateCrashed`` is raised)."""


@dataclass(frozen=True)
class Hold(Action):
    """The worker that made this request stops for ``for_s`` seconds of the run's time while the
    request is held (before delivery, or after the service committed it, its answer held), and the
    other workers go on; then the request goes on its way. With ``kill``, the worker dies when the
    hold begins and stays down meanwhile: a request held before delivery is still delivered (the
    network delivers what a dead sender sent), and its answer reaches no one."""

    for_s: float
    kill: bool = False


@dataclass
class FaultState:
    """What a fault keeps while armed. ``evidence`` is what proves each firing took effect; a
    firing is counted only by its evidence (one request, ``op``, may carry several pieces, e.g. each
    event a stream delivered twice), so a fault that was due but acted on nothing never counts."""

    seen: int = 0  # requests that matched the trigger (channel, target and condition)
    channel_seen: int = 0  # requests that matched the channel (service, method, route; a target's verb)
    evidence: list[Mapping[str, Any]] = field(default_factory=list)
    asked: list[int] = field(default_factory=list)  # ops of the matches it was asked to act on (skips left out)
    last_seen_op: int | None = None  # the op of the last match
    next_after_last: str | None = None  # the candidate's first request to the service after the last match

    @property
    def fired(self) -> int:
        return len({e.get("op") for e in self.evidence})

    @property
    def missed(self) -> int:
        """Matches it was asked to act on and could not (no evidence for them): the run proves
        nothing about it there."""
        ops = {e.get("op") for e in self.evidence}
        return sum(1 for op in self.asked if op not in ops)
