"""Which lines of the candidate's own code an instance ran: what guides ``explore`` to new code.

Started in a forked instance when the harness asks for it (``explore`` does; a plain run never):
a trace function that looks at each new code object once and follows only the candidate's own
(files under its code roots, ``code_roots``), recording each line the first time it runs. Every
other frame (the SDK, httpx, the standard library) gets no line events: the cost is one check per
call outside the candidate's code, a cached dict lookup. The instance sends the lines it reached
since its last answer with each answer (``take``), so a crash loses at most the call it ends.

What it deliberately does not do: measure branches, or anything of a candidate that is not a
Python instance of ours (a process candidate's reach is the shape of its requests, ``explore``).
"""

from __future__ import annotations

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
        if relative is None:
            return None
        frame.f_trace_lines = True
        return self._line

    def _line(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            key = (frame.f_code.co_filename, frame.f_lineno)
            if key not in self._seen:
                self._seen.add(key)
                self._new.append(f"{self._mine.get(frame.f_code) or key[0]}:{key[1]}")
        return self._line
