"""Markdown building blocks that any text from a document can pass through without breaking a page.

Prose is one line with HTML metacharacters escaped; a table cell also escapes ``|``; an inline code
span and a fenced block are fenced with more backticks than the text holds. Lone surrogates (which a
JSON document can carry as ``\\udxxx`` escapes) are written back as those escapes, so the page is
always valid UTF-8.

This module does not decide what goes on the page; it only makes text safe to put there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["cell", "code", "fenced", "row", "text"]

_SURROGATE = re.compile("[\ud800-\udfff]")
_TICKS = re.compile(r"`+")
_LINE_END = re.compile(r"\r\n|\r|\n")  # CommonMark's line endings, and only those


def _utf8(value: object) -> str:
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", str(value))


def text(value: object) -> str:
    """One line of prose: whitespace runs collapsed, HTML metacharacters escaped."""
    one_line = " ".join(_utf8(value).split())
    return one_line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def cell(value: object) -> str:
    """A table cell: prose escaping, and ``|`` escaped so it cannot end the cell."""
    return text(value).replace("|", "\\|")


def code(value: object, *, in_table: bool = False) -> str:
    """An inline code span that survives backticks in the value; ``None`` reads as *none*.

    In a table, ``|`` is escaped too: a table row is split on pipes before code spans are parsed."""
    if value is None:
        return "*none*"
    one_line = " ".join(_utf8(value).split())
    ticks = "`" * (max((len(m) for m in _TICKS.findall(one_line)), default=0) + 1)
    pad = " " if one_line.startswith("`") or one_line.endswith("`") or not one_line else ""
    span = f"{ticks}{pad}{one_line}{pad}{ticks}"
    return span.replace("|", "\\|") if in_table else span


def fenced(body: str, lang: str) -> list[str]:
    """A fenced code block longer than any backtick run inside ``body``; the body's lines verbatim
    (a final line ending aside)."""
    safe = _utf8(body)
    fence = "`" * max(3, max((len(m) for m in _TICKS.findall(safe)), default=0) + 1)
    return [f"{fence}{lang}", *_LINE_END.split(safe.removesuffix("\n").removesuffix("\r")), fence]


def row(cells: Iterable[str]) -> str:
    """One table row of already-escaped cells."""
    return "| " + " | ".join(cells) + " |"
