"""The side-effect picture of a run: every object a service holds that someone created, grouped so
that duplicates stand side by side.

Read from the run's ground truth (``truth`` in run.json), never from the candidate's word: every
list under a service whose records carry ``id``, ``created_at`` and ``created_by`` (WordPress
posts and media, and whatever a new service records the same way) is a table. Each record shows
who created it (the credential), when (virtual seconds), under which operation key (the key the
candidate stored with it), its status, and which history operation created it: the ``invoke``
whose committed completion answered with that id on a route ending in the table's name.

Records are grouped by the business role they belong to when the truth says so (a generated image
known by its digest in ``payloads``; an article by the marker in its content listed in
``watermarks``: ``job v1 article``), else by operation key. A group with more than one record is a
duplicate. The checkers decide whether that is a finding (``duplicate_drafts`` and
``duplicate_media``); this module only shows the picture and judges nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Creator", "Effect", "EffectGroup", "EffectTable", "side_effects"]

Doc = Mapping[str, Any]


@dataclass(frozen=True)
class Creator:
    """The history operation that created a record."""

    process: str
    op: int
    invoke: int  # history index of the invoke
    completion: int  # history index of its completion
    outcome: str  # ok | fail | info (info: the caller never learned the outcome)


@dataclass(frozen=True)
class Effect:
    id: str
    created_at: float | None
    created_by: str | None
    operation_key: str | None
    status: str
    creator: Creator | None


@dataclass(frozen=True)
class EffectGroup:
    key: str
    effects: tuple[Effect, ...]

    @property
    def duplicate(self) -> bool:
        return len(self.effects) > 1


@dataclass(frozen=True)
class EffectTable:
    service: str
    kind: str
    groups: tuple[EffectGroup, ...]

    @property
    def duplicates(self) -> int:
        return sum(len(g.effects) - 1 for g in self.groups if g.duplicate)

    @property
    def count(self) -> int:
        return sum(len(g.effects) for g in self.groups)


def side_effects(truth: Doc, entries: Sequence[Mapping[str, Any]] | None = None) -> list[EffectTable]:
    """The tables of ``truth`` (a run's ``truth``), each record linked to its creating operation in
    ``entries`` (the run's history) when given."""
    payloads, watermarks = _roles(truth)
    tables = []
    for service in sorted(truth):
        records = truth[service]
        if not isinstance(records, Mapping):
            continue
        for kind in sorted(records):
            rows = records[kind]
            if not isinstance(rows, list) or not rows or not all(_is_created(r) for r in rows):
                continue
            creators = _creators(entries or (), service, kind)
            groups: dict[str, list[Effect]] = {}
            for row in rows:
                key = _role(row, payloads, watermarks) or _key_label(row) or f"{kind} {row['id']}"
                groups.setdefault(key, []).append(_effect(row, creators.get(str(row["id"]))))
            tables.append(EffectTable(service, kind, tuple(EffectGroup(k, tuple(v)) for k, v in groups.items())))
    return tables


def _is_created(row: object) -> bool:
    return isinstance(row, Mapping) and all(key in row for key in ("id", "created_at", "created_by"))


def _effect(row: Mapping[str, Any], creator: Creator | None) -> Effect:
    meta = _mapping(row.get("meta"))
    status = str(row.get("status") or "")
    if row.get("deleted"):
        status = f"{status}, deleted".lstrip(", ")
    elif row.get("trashed_at") is not None and status != "trash":
        status = f"{status}, trashed".lstrip(", ")
    created_at = row.get("created_at")
    return Effect(
        id=str(row["id"]),
        created_at=float(created_at) if isinstance(created_at, (int, float)) else None,
        created_by=None if row.get("created_by") is None else str(row["created_by"]),
        operation_key=None if meta.get("operation_key") is None else str(meta["operation_key"]),
        status=status or "–",
        creator=creator,
    )


def _key_label(row: Mapping[str, Any]) -> str | None:
    meta = _mapping(row.get("meta"))
    key = meta.get("operation_key")
    return None if key is None else f"operation key {key}"


def _roles(truth: Doc) -> tuple[dict[str, Mapping[str, Any]], dict[str, Mapping[str, Any]]]:
    payloads: dict[str, Mapping[str, Any]] = {}
    watermarks: dict[str, Mapping[str, Any]] = {}
    for records in truth.values():
        if isinstance(records, Mapping):
            for name, into in (("payloads", payloads), ("watermarks", watermarks)):
                found = records.get(name)
                if isinstance(found, Mapping):
                    into.update({str(k): v for k, v in found.items() if isinstance(v, Mapping)})
    return payloads, watermarks


def _role(row: Mapping[str, Any], payloads: Mapping[str, Mapping[str, Any]],
          watermarks: Mapping[str, Mapping[str, Any]]) -> str | None:
    owner = payloads.get(str(row.get("sha256")))
    if owner is None and isinstance(row.get("content"), str):
        owner = next((who for mark, who in watermarks.items() if mark in row["content"]), None)
    if owner is None:
        return None
    return f"{owner.get('job_id')} v{owner.get('task_version')} {owner.get('role')}"


def _creators(entries: Sequence[Mapping[str, Any]], service: str, kind: str) -> dict[str, Creator]:
    invokes: dict[int, Mapping[str, Any]] = {}
    found: dict[str, Creator] = {}
    for entry in entries:
        data = _mapping(entry.get("data"))
        op = entry.get("op")
        if not isinstance(op, int):
            continue
        if entry.get("type") == "invoke":
            route = str(data.get("route", ""))
            if data.get("service") == service and route.rstrip("/").rsplit("/", 1)[-1] == kind:
                invokes[op] = entry
        elif op in invokes and data.get("committed") and "id" in _mapping(data.get("body")):
            invoke = invokes.pop(op)
            found.setdefault(str(_mapping(data.get("body"))["id"]), Creator(
                str(invoke.get("process")), op, int(invoke["index"]), int(entry["index"]), str(entry.get("type"))))
    return found


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
