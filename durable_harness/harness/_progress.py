"""What the terminal shows while a catalogue or a sweep runs.

On a terminal (a TTY), one status line is redrawn in place: item k of n, the elapsed time, the
passes, failures, unknowns and errors so far, and what is running now; a run that does not pass
is printed above it in full (``_cli_output.run_lines``), so the findings scroll by while the line
stays at the bottom. Anywhere else (a CI log, a pipe), nothing is redrawn: each finished item is one
plain line starting ``[k/n]``, followed by the details of a run that did not pass.

This is the one place beside the report index that reads the wall clock (``time.monotonic``), to
show the elapsed time; nothing it measures reaches a run, a verdict or a report. It does not decide
what a run's lines say.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from durable_harness.harness._cli_output import run_lines

__all__ = ["Progress"]

_STATUSES = ("passed", "failed", "unknown", "errors")


class Progress:
    """``start(name)`` before an item, ``done(doc)`` after it, ``close()`` at the end."""

    def __init__(self, total: int, *, stream: TextIO | None = None, tty: bool | None = None,
                 quiet_passes: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stdout
        self.tty = self.stream.isatty() if tty is None else tty
        self.quiet_passes = quiet_passes
        self._clock = clock
        self._started = clock()
        self.finished = 0
        self.counts = dict.fromkeys(_STATUSES, 0)
        self._drawn = False
        self._note = ""  # how the items run (``note``), shown with the status

    def note(self, text: str) -> None:
        """How the items run now (e.g. how many at once): on the status line, or a line of its own."""
        self._note = text
        if self.tty:
            self._draw("")
        else:
            self._write(f"({text})\n")

    def elapsed(self) -> str:
        seconds = int(max(self._clock() - self._started, 0))
        return f"{seconds // 60}:{seconds % 60:02d}"

    def start(self, name: str) -> None:
        if self.tty:
            self._draw(f"running {name}")

    def done(self, doc: Mapping[str, Any]) -> None:
        self.finished += 1
        key = "errors" if doc.get("error") else {"pass": "passed", "fail": "failed"}.get(str(doc["verdict"]), "unknown")
        self.counts[key] += 1
        lines = run_lines(doc)
        lines[0] = f"[{self.finished:>{len(str(self.total))}}/{self.total}] {lines[0]}"
        passed = key == "passed"
        if self.tty:
            self._clear()
            if not (passed and self.quiet_passes):
                self._write("\n".join(lines) + "\n")
            self._draw("")
        else:
            self._write("\n".join(lines[:1] if passed else lines) + "\n")

    def close(self) -> None:
        if self.tty:
            self._clear()

    def status(self, now: str) -> str:
        width = len(str(self.total))
        counts = " | ".join(f"{self.counts[name]} {name}" for name in _STATUSES)
        return (f"[{self.finished:>{width}}/{self.total}] {self.elapsed()} | {counts}" + (f" | {self._note}" if self._note else "")
                + (f" | {now}" if now else ""))

    def _draw(self, now: str) -> None:
        self._write("\r\x1b[2K" + self.status(now))
        self._drawn = True

    def _clear(self) -> None:
        if self._drawn:
            self._write("\r\x1b[2K")
            self._drawn = False

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()
