"""A history as the data of a swimlane timeline: one lane per process, one row per entry.

``timeline_data(entries, witnesses=...)`` turns history entries into a compact, column-wise
structure the report's script draws: the lanes (process names in order of first appearance, so
any process a scenario adds — a ``reviewer``, an ``operator`` — gets its lane), the entry types
present, and per entry its index, virtual time, type, lane, operation, a one-line summary and a
short detail. Operations become bars from ``invoke`` to ``ok``/``fail``/``info`` in the script,
which pairs them by ``op``; faults, crashes and restarts are marks; witnesses are listed so they
can be highlighted.

Summaries are written from what an entry says (method, service and route, status, whether the
service committed, a lost response, the created id, a fault's kind and target, a report's phase
and outcome). Details are the entry's data as compact JSON with large bodies cut, never more than
``DETAIL_CHARS``. This module knows no process or type by a fixed list; it renders nothing and
reads no file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["DETAIL_CHARS", "entry_summary", "timeline_data"]

DETAIL_CHARS = 200
_BODY_KEYS = 6
_COMPLETIONS = ("ok", "fail", "info")


def timeline_data(entries: Sequence[Mapping[str, Any]], *, witnesses: Iterable[int] = ()) -> dict[str, Any]:
    """The columns of a timeline for ``entries`` (history entries, in order)."""
    lanes: dict[str, int] = {}
    types: dict[str, int] = {}
    cols: dict[str, list[Any]] = {"i": [], "t": [], "k": [], "l": [], "o": [], "s": [], "d": []}
    for entry in entries:
        process = str(entry.get("process", "?"))
        kind = str(entry.get("type", "?"))
        op = entry.get("op")
        cols["i"].append(int(entry["index"]))
        cols["t"].append(_number(entry.get("time_s")))
        cols["k"].append(types.setdefault(kind, len(types)))
        cols["l"].append(lanes.setdefault(process, len(lanes)))
        cols["o"].append(op if isinstance(op, int) and not isinstance(op, bool) else -1)
        cols["s"].append(entry_summary(entry))
        cols["d"].append(_detail(entry.get("data")))
    present = set(cols["i"])
    return {"lanes": list(lanes), "types": list(types), **cols,
            "w": sorted({int(w) for w in witnesses} & present)}


def _number(value: object) -> float:
    return round(float(value), 6) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def entry_summary(entry: Mapping[str, Any]) -> str:
    """One line saying what ``entry`` records."""
    kind = str(entry.get("type", "?"))
    data = entry.get("data")
    data = data if isinstance(data, Mapping) else {}
    if kind == "invoke":
        return _invoke(data)
    if kind in _COMPLETIONS:
        return _completion(kind, data)
    if kind == "fault":
        target = f" on {data['target']}" if data.get("target") else ""
        return f"fault {data.get('kind', '?')} at {data.get('at', '?')} ({data.get('point', '?')}){target}"
    if kind == "report":
        found = data.get("checkpoint")
        checkpoint = found if isinstance(found, Mapping) else {}
        states = _states(data.get("operations"))
        return (f"report: outcome {data.get('outcome')}, phase {checkpoint.get('phase')}"
                + (f"; ledger {states}" if states else ""))
    if kind == "event":
        return f"event {data.get('type', '?')}" + (f" #{data['n']}" if "n" in data else "")
    if kind == "phase":
        return f"phase {data.get('phase', '?')}"
    if kind == "clock":
        return f"clock jumps {data.get('from_s')} s → {data.get('to_s')} s"
    if "because" in data:
        return f"{kind}: {data['because']}"
    return f"{kind} {_clip(_compact(data), 120)}".strip()


def _invoke(data: Mapping[str, Any]) -> str:
    if "method" not in data:
        return f"invoke {_clip(_compact(data), 120)}"
    text = f"{data.get('method')} {data.get('service', '')}{data.get('route', '')}"
    for key in ("type", "tool", "action"):
        if isinstance(data.get(key), str):
            text += f" {data[key]}"
    if data.get("credential"):
        text += f" as {data['credential']}"
    return text


def _completion(kind: str, data: Mapping[str, Any]) -> str:
    parts = [kind]
    if "status" in data:
        parts.append(str(data["status"]))
    if data.get("committed"):
        parts.append("committed")
    body = data.get("body")
    if isinstance(body, Mapping) and data.get("committed") and "id" in body:
        parts.append(f"id {body['id']}")
    if data.get("lost"):
        parts.append(f"response lost ({data['lost']})")
    if isinstance(body, Mapping) and isinstance(body.get("code"), str):
        parts.append(body["code"])
    if isinstance(data.get("error"), str):
        parts.append(_clip(data["error"], 80))
    return " ".join(parts)


def _states(operations: object) -> str:
    if not isinstance(operations, list):
        return ""
    counts: dict[str, int] = {}
    for op in operations:
        if isinstance(op, Mapping):
            state = str(op.get("state"))
            counts[state] = counts.get(state, 0) + 1
    return ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))


def _detail(data: object) -> str:
    if not isinstance(data, Mapping):
        return _clip(_compact(data), DETAIL_CHARS)
    shown = {key: (_shrink(value) if key == "body" else value) for key, value in data.items()}
    return _clip(_compact(shown), DETAIL_CHARS)


def _shrink(body: object) -> object:
    """A response or request body, its scalar fields only (at most a few): enough to recognise it."""
    if not isinstance(body, Mapping):
        return body if not isinstance(body, (list, str)) or len(body) < 40 else f"<{type(body).__name__}>"
    scalars = {k: v for k, v in body.items() if isinstance(v, (int, float, bool, str)) or v is None}
    kept = dict(list(scalars.items())[:_BODY_KEYS])
    if len(kept) < len(body):
        kept["…"] = f"{len(body) - len(kept)} more"
    return kept


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False, default=str)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
