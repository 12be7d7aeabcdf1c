"""progress loss (liveness): business steps the agent had to redo.

When a control plane abandons a pending call (cancels the turn, types "continue", starts over),
the agent re-plans and issues the same business action again under a new call_id. Every such
re-issue is a step redone; a scenario bounds how many it tolerates (``expect.max_redone_steps``,
default 0). Ground truth is the sessions API's record of every call the agent made; witnesses are
where the candidate first saw each re-issued call.

Progress is judged against what the world forced. A call the candidate answered as failed while the
world was breaking that step (a fault or a person's action took effect after the step's previous
answer and before this one: a report corrupted in storage, a 503 the candidate passed on) makes its
redo necessary:
each such failure allows one re-issue of its role beyond the bound. A candidate that refuses a
corrupt report and asks for it again passes; one that keeps asking with nothing new broken, or
abandons calls, is charged."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from durable_harness.harness.checkers._base import CheckInput, Finding, Witness, checker, listed, pluralise, witness


@checker("progress_loss", "liveness", rank=110)
def check(inp: CheckInput) -> Finding:
    job = (str(inp.job["job_id"]), str(inp.job["task_version"]))
    roles = set(inp.workload.roles(inp.job))  # the business steps of the job
    calls: dict[str, list[str]] = defaultdict(list)
    forced: dict[str, int] = defaultdict(int)
    breaks = _breaks(inp)
    since: dict[str, float] = {}  # per role: when its previous call was answered
    for call in inp.truth.get("openai", {}).get("tool_calls", []):
        if (str(call.get("job_id")), str(call.get("task_version"))) == job and call.get("role") in roles \
                and not (call.get("facts") or {}).get("platform_retry"):  # the platform's retry, not the candidate's doing
            role = str(call["role"])
            calls[role].append(str(call.get("call_id")))
            if call.get("answered") and call.get("success") is False and _broken_before(call, since.get(role), breaks):
                forced[role] += 1
            if call.get("answered_at") is not None:
                since[role] = float(call["answered_at"])
    redone = {role: ids for role, ids in calls.items() if len(ids) > 1}
    excused = {role: min(forced[role], len(ids) - 1) for role, ids in redone.items() if forced[role]}
    count = sum(len(ids) - 1 for ids in redone.values()) - sum(excused.values())
    bound = inp.scenario.expect.max_redone_steps
    detail = listed([f"{role} issued {len(ids)} times ({listed(ids)})" for role, ids in sorted(redone.items())], "; ")
    why = (f"; {pluralise(sum(excused.values()), 're-issue')} forced by the world, not counted: " + ", ".join(
        f"{role} {n}x (a call answered as failed while a fault or an action took effect)"
        for role, n in sorted(excused.items()))) if excused else ""
    if count <= bound:
        return Finding("pass", count,
                           f"{pluralise(count, 'step')} redone (bound {bound})" + (f": {detail}" if detail else "") + why)
    again = {call_id: role for role, ids in redone.items() for call_id in ids[1 + excused.get(role, 0):]}
    return Finding("fail", count,
                       f"{pluralise(count, 'business step')} redone, more than the bound of {bound}: {detail}{why}",
                       tuple(_first_sight(inp, again)))


def _breaks(inp: CheckInput) -> list[float]:
    """When the world broke something: every firing of a fault or an action, by its time."""
    return sorted(float(e["at_s"]) for f in inp.faults for e in f.get("evidence") or () if e.get("at_s") is not None)


def _broken_before(call: Mapping[str, Any], since: float | None, breaks: list[float]) -> bool:
    """Whether the world broke something after the role's previous answer and before this one (the
    step's work, its artifact or its call; in real time a firing and the call's issue may come in
    either order within an instant)."""
    answered = call.get("answered_at")
    if answered is None:
        return False
    return any((since is None or t > since) and t <= float(answered) for t in breaks)


def _first_sight(inp: CheckInput, calls: dict[str, str]) -> list[Witness]:
    """The first history entry that shows each re-issued call id (a response the candidate read)."""
    out, left = [], dict(calls)
    for entry in inp.history:
        if not left:
            break
        if entry.type not in ("ok", "event"):
            continue
        text = str(entry.data)
        for call_id in [c for c in left if c in text]:
            out.append(witness(entry, f"the agent re-issued {left.pop(call_id)} as {call_id}"))
    return out
