"""The append-only history of one run: the truth checkers judge from.

Each operation the candidate makes through the gate is an ``invoke`` followed by exactly one
completion: ``ok`` (a definite success), ``fail`` (a definite failure: the effect did not happen)
or ``info`` (the caller cannot know: the effect may or may not have happened; Jepsen's word).
Besides operations the history holds the events of streamed responses as they reach the
candidate, fault firings with their evidence, what people did (``action``: the user, the reviewer,
the operator), candidate report snapshots, run phases, clock jumps, crashes and restarts.

Entries are plain JSON so a history saved as JSONL reloads identical, and its digest proves that
two runs of one seed saw the same world. Each entry is made canonical JSON once, when it is
appended (entries are never changed after), and the digest grows with the lines. This module does
not judge; checkers do.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["COMPLETIONS", "Entry", "History"]

COMPLETIONS = ("ok", "fail", "info")
TYPES = ("invoke", *COMPLETIONS, "event", "fault", "action", "report", "phase", "clock", "crash", "restart", "note")


@dataclass(frozen=True)
class Entry:
    """One line of history. ``op`` links an invoke to its completion."""

    index: int
    time_s: float
    type: str
    process: str
    op: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "time_s": round(self.time_s, 6),
            "type": self.type,
            "process": self.process,
            "op": self.op,
            "data": dict(self.data),
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Entry:
        return cls(
            index=int(raw["index"]),
            time_s=float(raw["time_s"]),
            type=str(raw["type"]),
            process=str(raw["process"]),
            op=raw.get("op"),
            data=dict(raw.get("data") or {}),
        )


class History:
    """An append-only list of entries; operations get increasing op ids."""

    def __init__(self, entries: Iterable[Entry] = (), lines: Iterable[str] | None = None) -> None:
        self._entries: list[Entry] = list(entries)
        self._next_op = 1 + max((e.op or 0 for e in self._entries), default=0)
        self._open: dict[int, Entry] = {}
        # Each entry's canonical line, made once when it is appended (or as read back), and the digest
        # of the lines so far.
        self._lines: list[str] = [_line(e) for e in self._entries] if lines is None else list(lines)
        if len(self._lines) != len(self._entries):
            raise ValueError(f"{len(self._lines)} lines for {len(self._entries)} history entries")
        self._sha = hashlib.sha256("".join(line + "\n" for line in self._lines).encode())

    # -- writing -------------------------------------------------------------------------
    def append(self, time_s: float, type_: str, process: str, data: Mapping[str, Any] | None = None,
               op: int | None = None) -> Entry:
        if type_ not in TYPES:
            raise ValueError(f"history entry type {type_!r} is not one of {TYPES}")
        text = _text(data or {})
        entry = Entry(len(self._entries), time_s, type_, process, op, dict(json.loads(text)))
        line = _compose(entry, text)
        self._entries.append(entry)
        self._lines.append(line)
        self._sha.update(line.encode())
        self._sha.update(b"\n")
        return entry

    def invoke(self, time_s: float, process: str, data: Mapping[str, Any]) -> int:
        op = self._next_op
        self._next_op += 1
        self._open[op] = self.append(time_s, "invoke", process, data, op=op)
        return op

    def complete(self, time_s: float, op: int, type_: str, data: Mapping[str, Any]) -> Entry:
        if type_ not in COMPLETIONS:
            raise ValueError(f"completion type {type_!r} is not one of {COMPLETIONS}")
        invoke = self._open.pop(op, None)
        if invoke is None:
            raise ValueError(f"op {op!r} has no open invoke (already completed, or never invoked)")
        return self.append(time_s, type_, invoke.process, data, op=op)

    def is_open(self, op: int) -> bool:
        """Whether ``op`` was invoked and has no completion yet."""
        return op in self._open

    def close_open(self, time_s: float, reason: str,
                   spare: Callable[[int, str], bool] | None = None) -> int:
        """Complete every still-open invoke as ``info`` (e.g. its process crashed), but those
        ``spare(op, process)`` keeps open."""
        ops = sorted(op for op, invoke in self._open.items() if spare is None or not spare(op, invoke.process))
        for op in ops:
            self.complete(time_s, op, "info", {"error": reason})
        return len(ops)

    # -- reading -------------------------------------------------------------------------
    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index: int) -> Entry:
        return self._entries[index]

    def of_type(self, *types: str) -> list[Entry]:
        return [e for e in self._entries if e.type in types]

    def operations(self) -> list[tuple[Entry, Entry | None]]:
        """Each invoke paired with its completion (None while still open)."""
        done = {e.op: e for e in self._entries if e.type in COMPLETIONS}
        return [(e, done.get(e.op)) for e in self._entries if e.type == "invoke"]

    def digest(self) -> str:
        """sha256 of the canonical JSONL: equal digests mean identical histories."""
        return self._sha.copy().hexdigest()

    def lines(self) -> Iterator[str]:
        return iter(self._lines)

    def save(self, path: Path) -> None:
        path.write_text("".join(line + "\n" for line in self.lines()), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> History:
        """The history saved at ``path``: its lines kept as they were written, so its digest is the
        saved one."""
        entries, lines = [], []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                entries.append(Entry.from_json(json.loads(line)))
            except (ValueError, KeyError, TypeError) as err:
                raise ValueError(f"{path}:{n}: not a history entry: {err}") from err
            lines.append(line)
        return cls(entries, lines)


def _line(entry: Entry) -> str:
    """The entry as one line of canonical JSON (sorted keys, no spaces): what is saved and digested."""
    return json.dumps(entry.to_json(), sort_keys=True, separators=(",", ":"))


def _text(data: Mapping[str, Any]) -> str:
    """``data`` as canonical JSON, made once: the entry holds it parsed back (only plain JSON values,
    so save/load is lossless) and its line embeds it as it is. Keys are sorted as they are; a key
    that is not a string (never recorded today) is sorted before JSON makes it one."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), default=_default)


def _compose(entry: Entry, text: str) -> str:
    """``_line(entry)`` from the entry's data already made canonical (``text``): the same bytes.
    A run names a handful of processes and types: each is made JSON once."""
    op = "null" if entry.op is None else _number(entry.op)
    return (f'{{"data":{text},"index":{entry.index},"op":{op},"process":{_string(entry.process)},'
            f'"time_s":{_number(round(entry.time_s, 6))},"type":{_string(entry.type)}}}')


@functools.lru_cache(maxsize=1024)
def _string(value: str) -> str:
    return json.dumps(value)


def _number(value: Any) -> str:
    """``json.dumps(value)`` of a number: JSON writes a finite int or float as its repr."""
    if type(value) is int or (type(value) is float and math.isfinite(value)):
        return repr(value)
    return json.dumps(value)


def _default(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"bytes_sha256": hashlib.sha256(value).hexdigest(), "size": len(value)}
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"history data holds a {type(value).__name__}: {value!r}; record plain JSON")
