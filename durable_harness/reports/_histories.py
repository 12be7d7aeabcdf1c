"""Read the files beside a report folder's runs, for the renderers that draw them.

A run's history lies in its folder (``<report>/<scenario id>/history.jsonl``); a sweep's witnesses
name the history of the crash point they come from (``points/<id>/history.jsonl``), relative to
the same folder, and that point's ``run.json`` lies beside it. ``ReportFiles(report_dir)`` reads
them: ``entries(run, file)`` gives the entries of a history as dicts, ``document(run, file)`` a
JSON object and ``raw(run, file)`` the bytes, each ``None`` when the file is missing or unreadable; ``ReportFiles(None)`` has no
folder and gives ``None`` for everything (rendering documents alone).

A history is evidence, not a document the report is judged by: a line that is not a JSON object
with an ``index`` is skipped rather than refused, and a file of more than ``MAX_ENTRIES`` entries
is cut there (the timeline says how many it shows). This module never reads outside the run's own
folder (a ``file`` such as ``../../x`` gives ``None``), and does not validate, render or summarise.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["MAX_ENTRIES", "ReportFiles"]

Doc = Mapping[str, Any]
MAX_ENTRIES = 100_000


class ReportFiles:
    """The files of the report folder ``report_dir`` (or of none), each read at most once."""

    def __init__(self, report_dir: str | os.PathLike[str] | None) -> None:
        self._root = None if report_dir is None else Path(report_dir).resolve()

    def entries(self, run: Doc, file: str) -> list[dict[str, Any]] | None:
        """The entries of history ``file`` of ``run`` (relative to the run's folder)."""
        return self._entries(str(run["scenario"]["id"]), file)

    def raw(self, run: Doc, file: str) -> bytes | None:
        """The bytes of ``file`` of ``run``'s folder, as they are (for an attachment)."""
        target = self._path(str(run["scenario"]["id"]), file)
        try:
            return None if target is None else target.read_bytes()
        except OSError:
            return None

    def document(self, run: Doc, file: str) -> dict[str, Any] | None:
        """The JSON object in ``file`` of ``run``'s folder."""
        return self._document(str(run["scenario"]["id"]), file)

    @functools.cache  # noqa: B019  (one instance per rendering; it dies with it)
    def _entries(self, folder: str, file: str) -> list[dict[str, Any]] | None:
        target = self._path(folder, file)
        if target is None:
            return None
        try:
            with target.open(encoding="utf-8") as handle:
                return _entries(handle)
        except (OSError, UnicodeDecodeError):
            return None

    @functools.cache  # noqa: B019
    def _document(self, folder: str, file: str) -> dict[str, Any] | None:
        target = self._path(folder, file)
        if target is None:
            return None
        try:
            doc = json.loads(target.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        return doc if isinstance(doc, dict) else None

    def _path(self, folder: str, file: str) -> Path | None:
        if self._root is None:
            return None
        base = (self._root / folder).resolve()
        target = (base / file).resolve()
        if self._root not in base.parents or base not in target.parents or not target.is_file():
            return None
        return target


def _entries(lines: Any) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for line in lines:
        if len(entries) >= MAX_ENTRIES:
            break
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("index"), int):
            entries.append(entry)
    return entries
