"""The job as a LangGraph `StateGraph`, checkpointed with `PostgresSaver`.

One thread per job version (`<job_id>@v<version>`). The worker invokes the graph once per tick;
a run goes

    START → guard → session → observe ─┬→ perform → answer → observe …
                                       ├→ resume (recovery summary / notice) → END
                                       ├→ approval → publish → END
                                       └→ END (the agent is thinking: come back later)
    guard → settle (cancelled) | retire (superseded) | END (finished, or waiting for a human)

and ends whenever there is nothing to do now (`wait_s` says when to come back). A process that
died in the middle of a run is resumed from the last checkpoint (`invoke(None)`): the node that
was running when it died runs again, which is why every node that writes reconciles first
(`effects.py`). The graph is run with `durability="sync"` (see README).
"""

from __future__ import annotations

from typing import Any, Callable, TypedDict

from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.graph import END, START, StateGraph

from .deps import Deps
from .nodes_flow import Nodes


class JobState(TypedDict, total=False):
    """A job version's conversation with its agent (plain values only)."""

    job_id: str
    version: str
    workload: str
    wake: int
    session_id: str
    answered: dict[str, str]       # call_id → "sent": calls whose result the API accepted
    call: dict[str, Any] | None    # the pending function call being handled
    reply: dict[str, Any] | None   # its tool result, to send
    delivery: dict[str, Any] | None   # coding: a checked delivery, its result not yet accepted
    delivered: dict[str, Any] | None  # coding: the delivery whose result the API accepted
    notices: list[str]             # coding: what to tell the agent once its turn is over
    refused: list[str]             # tools refused as not allowed
    messages: int                  # user messages sent (recovery summaries, notices)
    cancel_sent: bool
    settled: bool
    retired: bool
    route: str
    wait_s: float
    verdict: str                   # "" | failed | needs_human | completed | cancelled
    reason: str


ROUTES = ("guard", "session", "observe", "perform", "answer", "resume", "approval", "publish",
          "settle", "retire")


def _router(targets: tuple[str, ...]) -> Callable[[JobState], str]:
    def route(state: JobState) -> str:
        name = state.get("route", "end")
        return name if name in targets else END
    return route


def build(deps: Deps, saver: PostgresSaver) -> Any:
    """Compile the job graph against the run's checkpointer."""
    nodes = Nodes(deps)
    builder: StateGraph[JobState] = StateGraph(JobState)
    for name in ROUTES:
        builder.add_node(name, getattr(nodes, name))
    builder.add_edge(START, "guard")
    paths: dict[str, tuple[str, ...]] = {
        "guard": ("session", "settle", "retire", "approval"),
        "session": ("observe",),
        "observe": ("perform", "resume", "approval", "guard"),
        "perform": ("answer", "guard"),
        "answer": ("observe", "guard"),
        "resume": ("guard",),
        "approval": ("publish",),
        "publish": ("guard",),
        "settle": (),
        "retire": (),
    }
    for name, targets in paths.items():
        builder.add_conditional_edges(name, _router(targets), [*targets, END])
    return builder.compile(checkpointer=saver)


def thread_config(job_id: str, version: str, limit: int = 60) -> dict[str, Any]:
    return {"configurable": {"thread_id": f"{job_id}@v{version}"}, "recursion_limit": limit}
