"""unreported effects: a side effect was performed for a tool call, but that call never got its
result (the candidate cancelled the turn, typed "continue", or left the session behind).

The agent then reasons from a false belief: it thinks the draft or the upload did not happen and
asks for it again. Ground truth: every call the agent issued, with when it was issued and whether
it was answered, and every remote effect that reached a service, with when it was created. An
effect belongs to the latest call of its business role issued before it was created; a call
counts only if an effect belongs to it. A request refused before delivery created nothing, so a
call whose every attempt was refused is not counted. A call issued before the user's cancellation
was acknowledged is not counted either: after it, the contract forbids answering the agent (the
turn is cancelled instead); nor one issued before the sessions API key was revoked (no answer can
reach the agent any more)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from durable_harness.harness.checkers._base import CheckInput, Finding, checker, creation_witnesses, listed, pluralise
from durable_harness.harness.workloads import Effect


@checker("unreported_effects", "safety")
def check(inp: CheckInput) -> Finding:
    job = (str(inp.job["job_id"]), str(inp.job["task_version"]))
    calls = [c for c in inp.truth.get("openai", {}).get("tool_calls", [])
             if (str(c.get("job_id")), str(c.get("task_version"))) == job and c.get("role")]
    owners = _owners(calls, inp.workload.job_effects(inp.truth, inp.job))
    no_answer_from = min((float(p.get("at_s", 0.0)) for p in inp.truth.get("people") or [] if _forbids_answers(p)),
                         default=None)
    unreported = [(c, effects) for c, effects in owners if not c.get("answered")
                  and (no_answer_from is None or float(c.get("issued_at") or 0.0) > no_answer_from)]
    with_effects = sum(1 for _c, effects in owners if effects)
    if not unreported:
        return Finding("pass", 0,
                           f"every call whose effect happened got its result ({pluralise(with_effects, 'call')} with effects)")
    detail = listed([f"{c.get('name')} {c.get('call_id')} ({c.get('role')}) in {c.get('turn_id')}: "
                     f"{listed([f'{e.kind} {e.id}' for e in effects])}" for c, effects in unreported], "; ")
    wits = [w for _c, effects in unreported for e in effects
            for w in creation_witnesses(inp.history, e.service, e.route, [e.id])]
    return Finding("fail", len(unreported),
                       f"{pluralise(len(unreported), 'call')} never got the result of a side effect that happened: {detail}",
                       tuple(wits))


def _forbids_answers(act: Mapping[str, Any]) -> bool:
    """From this act of a person on, answering the agent is forbidden (the user cancelled) or
    impossible (the sessions API key was revoked)."""
    return bool((act.get("kind") == "cancel" and act.get("acknowledged"))
                or (act.get("kind") == "revoke_credentials" and act.get("service") == "openai"))


def _owners(calls: list[Mapping[str, Any]], effects: list[Effect]) -> list[tuple[Mapping[str, Any], list[Effect]]]:
    """Each call with the effects that belong to it (the latest call of the role issued before each)."""
    by_call: dict[str, list[Effect]] = {str(c.get("call_id")): [] for c in calls}
    for effect in effects:
        issued = [c for c in calls if c.get("role") == effect.role and float(c.get("issued_at") or 0.0) <= effect.created_at]
        if issued:
            owner = max(issued, key=lambda c: float(c.get("issued_at") or 0.0))
            by_call[str(owner.get("call_id"))].append(effect)
    return [(c, by_call[str(c.get("call_id"))]) for c in calls if by_call[str(c.get("call_id"))]]
