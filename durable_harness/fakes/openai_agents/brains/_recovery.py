"""Recovery summaries: the structured user message a control plane sends to tell its agent which
steps are already done, with their receipts, so the agent continues without redoing them.

The text is the line ``RECOVERY SUMMARY`` (surrounding blanks ignored) followed by exactly one
JSON object with a ``done`` object mapping each finished role to its receipt object::

    RECOVERY SUMMARY
    {"done": {"image:1": {"media_id": 3}, "article": {"post_id": 7}}}

Other top-level keys are ignored. Which roles exist and which receipts they need is the brain's
business (``brains.article`` documents its own); this module finds the summaries among a
session's items and checks their shape. ``recovery_summary(done)`` writes one.

What it deliberately does not do: decide what to do next, or accept free text, trailing prose
after the object, or a summary as the first (task) message of a session.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["RECOVERY_SUMMARY_HEADER", "Recovery", "find_recovery", "recovery_summary"]

RECOVERY_SUMMARY_HEADER = "RECOVERY SUMMARY"

# (role, receipt) -> (the receipt as the brain will use it, or None and why it is unusable)
ReceiptCheck = Callable[[str, Any], tuple[dict[str, Any] | None, str]]


def recovery_summary(done: Mapping[str, Mapping[str, Any]]) -> str:
    """The text of a recovery summary declaring ``done`` (role -> receipt)."""
    body = {"done": {str(role): dict(receipt) for role, receipt in done.items()}}
    return f"{RECOVERY_SUMMARY_HEADER}\n{json.dumps(body, sort_keys=True)}"


@dataclass(frozen=True)
class Recovery:
    """What a session's items say about recovery summaries.

    ``done`` is the latest usable summary's roles and receipts and ``after`` the index of the first
    item after it (``done`` is None and ``after`` 0 when there is none). ``problem`` is set when
    the latest summary-like message is unusable; ``problem_turn_id`` is its turn.
    """

    done: dict[str, dict[str, Any]] | None
    after: int
    problem: str | None = None
    problem_turn_id: str | None = None


def find_recovery(items: Sequence[Mapping[str, Any]], roles: Collection[str], check: ReceiptCheck) -> Recovery:
    """Scan the user messages after the first (the task) for recovery summaries, oldest first."""
    done: dict[str, dict[str, Any]] | None = None
    after, problem, problem_turn = 0, None, None
    users = [k for k, item in enumerate(items) if item.get("type") == "message" and item.get("role") == "user"]
    for k in users[1:]:
        text = _text(items[k])
        if not is_recovery_summary(text):
            continue
        parsed, why = parse_recovery_summary(text, roles, check)
        if parsed is None:
            problem, problem_turn = why, str(items[k].get("turn_id"))
        else:
            done, after, problem, problem_turn = parsed, k + 1, None, None
    return Recovery(done=done, after=after, problem=problem, problem_turn_id=problem_turn)


def is_recovery_summary(text: str) -> bool:
    return text.strip().split("\n", 1)[0].strip() == RECOVERY_SUMMARY_HEADER


def parse_recovery_summary(text: str, roles: Collection[str],
                           check: ReceiptCheck) -> tuple[dict[str, dict[str, Any]] | None, str]:
    """Role -> receipt of a summary, or None and why it is unusable (shown with ``!r``)."""
    rest = text.strip().split("\n", 1)[1] if "\n" in text.strip() else ""
    try:
        body = json.loads(rest)
    except ValueError as error:
        return None, f"the text after {RECOVERY_SUMMARY_HEADER!r} is not one JSON object ({error})"
    if not isinstance(body, dict):
        return None, f"the text after {RECOVERY_SUMMARY_HEADER!r} is {_clip(rest)!r}, not a JSON object"
    declared = body.get("done")
    if not isinstance(declared, dict):
        return None, f"'done' is {declared!r}; it must be an object mapping roles to receipts"
    done: dict[str, dict[str, Any]] = {}
    for role, receipt in declared.items():
        if role not in roles:
            return None, f"role {role!r} is not a step of this job; its roles are {sorted(roles)!r}"
        if not isinstance(receipt, dict):
            return None, f"the receipt of {role!r} is {receipt!r}; it must be a JSON object"
        usable, why = check(role, receipt)
        if usable is None:
            return None, f"the receipt of {role!r} is unusable: {why}"
        done[role] = usable
    return done, ""


def _text(item: Mapping[str, Any]) -> str:
    content = item.get("content")
    if not isinstance(content, list):
        return ""
    return "".join(str(part.get("text", "")) for part in content
                   if isinstance(part, Mapping) and part.get("type") == "input_text")


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
