"""The brain: the scripted agent inside the fake sessions API.

A brain is what the LLM is in the real service. The fake owns the session, its turns and items;
whenever a turn needs the agent to think (a user message started it, or the last pending tool
result resumed it) and the thinking time has passed on the virtual clock, the fake calls::

    brain.think(step: Step) -> Sequence[Output]

``Step`` carries what a model would see: the session's own items (wire dicts, oldest first,
including this turn's new user message or tool results) and the inputs that triggered this step.
A brain should re-plan from ``step.items`` rather than from private memory: that is what makes
it re-issue an unanswered action after a "continue", as real models do.

The outputs are appended to the turn in order. Zero or more notes (``Reasoning``/``Commentary``)
and work (``RunCommand``/``CaptureArtifact``, done at once in the session's hosted environment;
``step.environment`` and ``step.artifacts`` show its state), then at most one kind of ending:

* one or more ``FunctionCall`` - the turn waits (``waiting``; session ``requires_action``) until a
  tool result arrives for every call, then the brain thinks again. A brain names the tool its
  script needs; the fake issues the calls only if the session's agent declares every one of those
  tools (``agent.tools``), and otherwise ends the turn with a final answer naming the missing ones
  (a brain need not check: it re-plans from the items, which hold no call);
* one or more ``SpawnSubagent`` - the root agent delegates: each becomes a ``create_subagent_call``
  item and a subagent with its own turn (``subagent_id`` set) that does the scripted ``work`` one
  thinking time later and closes; the root turn stays ``in_progress`` (session ``in_progress``)
  meanwhile, then gets a ``wait_for_subagents_call`` item and one ``agent_message`` per subagent
  (its final answer, sent to the root agent) and the brain thinks again;
* ``FinalAnswer`` - an assistant message with ``phase: final_answer``; the turn completes;
* ``Fail`` - the turn fails with ``error{code, message}`` and the session fails;
* nothing - after work, the brain thinks again; without work, the turn completes unanswered.

A ``FunctionCall`` declares its provenance (job, version, role) and the business payloads it
carries (digests of bytes, watermark strings); the fake records them as ground truth the
candidate cannot see. One brain instance serves one session; a ``BrainFactory`` builds it from
the session's metadata and the text of its first user message.

What it deliberately does not do: talk HTTP, read the clock or global random, or touch the
fake's state. Everything a brain produces is a pure function of its construction and its steps.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "Brain",
    "BrainFactory",
    "CaptureArtifact",
    "Commentary",
    "Fail",
    "FinalAnswer",
    "FunctionCall",
    "Output",
    "Reasoning",
    "RunCommand",
    "SpawnSubagent",
    "Step",
    "ToolResult",
    "output_text",
]


@dataclass(frozen=True)
class Reasoning:
    """A reasoning item with one summary text."""

    text: str


@dataclass(frozen=True)
class Commentary:
    """An assistant message with ``phase: commentary``."""

    text: str


@dataclass(frozen=True)
class FunctionCall:
    """A function call the candidate must execute and answer with a tool result."""

    name: str
    arguments: Mapping[str, Any]
    job_id: str = ""
    task_version: str = ""
    role: str = ""                              # e.g. "image:2", "article", "article:seo"
    payload_sha256: tuple[str, ...] = ()        # digests of business bytes inside the arguments
    watermarks: tuple[str, ...] = ()            # marker strings embedded in the arguments
    facts: Mapping[str, Any] = field(default_factory=dict)  # extra ground truth (e.g. tests_reset_count)


@dataclass(frozen=True)
class FinalAnswer:
    """An assistant message with ``phase: final_answer``; the turn completes."""

    text: str


@dataclass(frozen=True)
class Fail:
    """The turn fails with ``error{code, message}`` (``code`` from the SDK's SessionTurnError)."""

    code: str
    message: str


@dataclass(frozen=True)
class RunCommand:
    """Work: a command the agent runs in its hosted environment (a ``command_execution`` item).

    ``content`` is the stdin of ``write <path>``. Work may be mixed with notes; outputs that end
    with work and no ending make the agent think again once the commands have run.
    """

    command: str
    content: bytes | None = None
    cwd: str = "/workspace"


@dataclass(frozen=True)
class CaptureArtifact:
    """Work: publish the environment file at ``path`` as a ``SessionArtifact`` of this turn."""

    path: str


@dataclass(frozen=True)
class SpawnSubagent:
    """An ending: delegate ``work`` to a new subagent and wait for its report.

    ``work`` is the subagent's one turn: notes (``Reasoning``/``Commentary``) then exactly one
    ``FinalAnswer``, its report (an assistant message with ``phase: final_answer`` in the
    subagent's turn, and an ``agent_message`` to the root agent). ``name`` and ``instructions``
    become the ``Subagent`` object's; ``instructions`` is also the ``create_subagent_call``'s
    content. Any sequence is accepted for ``work`` and kept as a tuple.
    """

    name: str
    instructions: str
    work: Sequence[Reasoning | Commentary | FinalAnswer]
    model: str | None = None
    reasoning_effort: str | None = None

    def __post_init__(self) -> None:
        for field_name in ("name", "instructions"):
            value = getattr(self, field_name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"SpawnSubagent.{field_name}={value!r} must be a non-empty string")
        if isinstance(self.work, (str, bytes)) or not isinstance(self.work, Sequence):
            raise TypeError(f"SpawnSubagent.work={self.work!r} must be a sequence of Reasoning/Commentary "
                            "outputs ending with one FinalAnswer")
        work = tuple(self.work)
        object.__setattr__(self, "work", work)
        if not work or not isinstance(work[-1], FinalAnswer):
            raise ValueError(f"SpawnSubagent.work={work!r} must end with one FinalAnswer (the subagent's report)")
        for index, output in enumerate(work[:-1]):
            if not isinstance(output, (Reasoning, Commentary)):
                raise ValueError(f"SpawnSubagent.work[{index}]={output!r}: only Reasoning and Commentary may "
                                 "come before the subagent's final FinalAnswer")

    @property
    def report(self) -> str:
        """The text of the subagent's final answer."""
        final = self.work[-1]
        assert isinstance(final, FinalAnswer)  # __post_init__ proved it
        return final.text


Output = Reasoning | Commentary | RunCommand | CaptureArtifact | FunctionCall | FinalAnswer | Fail | SpawnSubagent


@dataclass(frozen=True)
class ToolResult:
    """One accepted ``agent.session.input.tool_result`` (``output`` flattened to text)."""

    call_id: str
    name: str
    success: bool
    output: str | None
    error: str | None


@dataclass(frozen=True)
class Step:
    """What the brain sees when it thinks."""

    session_id: str
    turn_id: str
    items: tuple[Mapping[str, Any], ...]        # the session's items, oldest first (wire dicts)
    user_text: str | None = None                # the user message(s) that started this turn
    results: tuple[ToolResult, ...] = field(default_factory=tuple)  # results that resumed it
    environment: Mapping[str, Any] | None = None  # hosted: {id, type, status, reset_count}; else None
    artifacts: tuple[Mapping[str, Any], ...] = ()  # the session's live SessionArtifact objects, oldest first


class Brain(Protocol):
    """One session's scripted agent."""

    def think(self, step: Step) -> Sequence[Output]: ...


BrainFactory = Callable[[Mapping[str, str], str], Brain]
"""``(session_metadata, first_input_text) -> Brain``: called at a session's first user message."""


def output_text(output: Any) -> str | None:
    """A tool output as the brain reads it: a string as is, ``input_text`` parts joined, else None."""
    if output is None or isinstance(output, str):
        return output
    if isinstance(output, list):
        return "".join(str(part.get("text", "")) for part in output
                       if isinstance(part, Mapping) and part.get("type") == "input_text")
    return None
