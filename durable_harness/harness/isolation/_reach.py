"""Which lines of the candidate's own code an instance ran: what guides ``explore`` to new code.

Started in a forked instance when the harness asks for it (``explore`` does; a plain run never):
a trace function that looks at each new code object once and follows only the candidate's own
(files under its code roots, ``code_roots``), recording each line the first time it runs; a code
object all of whose lines have run gets no line events any more. Every other frame (the SDK, httpx,
the standard library) gets none either: the cost is one check per call, a cached dict lookup. The instance sends the lines it reached
since its last answer with each answer (``take``), so a crash loses at most the call it ends.

What it deliberately does not do: measure branches, or anything of a candidate that is not a
Python instance of ours (a process candidate's reach is the shape of its requests, ``explore``).
"""

from __future__ import annotations

import dis
import sys
import threading
from collections.abc import Sequence
from types import CodeType, FrameType
from typing import Any

__all__ = ["LineReach"]


class LineReach:
    """Lines run under ``roots`` (folders or files), as ``relative/path.py:line``."""

    def __init__(self, roots: Sequence[str]) -> None:
        self._roots = tuple(str(r).rstrip("/") for r in roots if r)
        self._mine: dict[CodeType, str | None] = {}  # code object -> its file relative to its root, or None
        self._left: dict[CodeType, set[int]] = {}  # of the candidate's code objects: their lines not run yet
        self._seen: set[tuple[str, int]] = set()
        self._new: list[str] = []

    def start(self) -> None:
        if not self._roots:
            return
        threading.settrace(self._call)
        sys.settrace(self._call)

    def take(self) -> list[str]:
        """The lines reached since the last ``take``."""
        new, self._new = self._new, []
        return new

    def _relative(self, code: CodeType) -> str | None:
        name = code.co_filename
        for root in self._roots:
            if name == root:
                return name.rsplit("/", 1)[-1]
            if name.startswith(root + "/"):
                return name[len(root) + 1:]
        return None

    def _call(self, frame: FrameType, event: str, arg: Any) -> Any:
        code = frame.f_code
        try:
            relative = self._mine[code]
        except KeyError:
            relative = self._mine[code] = self._relative(code)
            if relative is not None:
                self._left[code] = _lines(code)
        if relative is None:
            return None
        if not self._left.get(code):  # every line of it has run: no line events for it any more
            self._mine[code] = None
            return None
        frame.f_trace_lines = True
        return self._line

    def _line(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            code, line = frame.f_code, frame.f_lineno
            left = self._left.get(code)
            if left is not None:
                left.discard(line)
            key = (code.co_filename, line)
            if key not in self._seen:
                self._seen.add(key)
                self._new.append(f"{self._mine.get(code) or key[0]}:{line}")
        return self._line


_PROLOGUE = {"RESUME", "RETURN_GENERATOR", "POP_TOP", "NOP", "CACHE", "MAKE_CELL", "COPY_FREE_VARS"}


def _lines(code: CodeType) -> set[int]:
    """The lines of ``code`` a line event can come from: not a function's first line when only its
    prologue is there (the ``def``, which runs no line of its own)."""
    on: dict[int, set[str]] = {}
    for instruction in dis.get_instructions(code):
        line = instruction.positions.lineno if instruction.positions else None
        if line is not None:
            on.setdefault(line, set()).add(instruction.opname)
    return {line for line, names in on.items() if not (line == code.co_firstlineno and names <= _PROLOGUE
                                                       and code.co_name != "<module>")}
