"""``report.html``: the reviewer's report, one self-contained page.

It opens from a CI artifact or an e-mail attachment: the styles, the script and the timelines'
data are inlined, and a Content-Security-Policy forbids loading anything else (no network, no
external assets). Top to bottom: the header (verdict, exit code and its meaning, candidate and
digest, harness version and commit, date, seeds, scenario counts), the top findings (each with its
because, witnesses linked into the timelines, and its reproduce command with a copy button), the
verdict matrix with safety and liveness counters apart and each run's faults (fired, not
exercised, unfired), the coverage, and one section per run: its checkers, faults, side effects
(``_effects``) and timelines (``_timeline``, drawn by ``timeline.js``). A filter bar narrows
everything by text, counter and verdict.

The page is a Jinja2 template (``templates/``) over the values ``_html_model`` decides; equal
input gives equal bytes (nothing reads the clock). Text is escaped by the template engine, and the
timelines' JSON is made safe to sit inside a ``<script>`` element. This module does not read run
documents from disk (``_io`` does), refuse mixed reports, or judge anything.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from ._documents import validate_report, validate_run
from ._histories import ReportFiles
from ._html_model import page_model

__all__ = ["render_html"]

Doc = Mapping[str, Any]
_SCRIPTS = ("timeline.js", "report.js")
# In a <script> element only "</" (and, for old parsers, "<!--") can end it; U+2028/9 break old JS.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                              "\u2029": "\\u2029"})


def render_html(runs: Sequence[Doc], index: Doc | None = None, files: ReportFiles | None = None) -> str:
    """Render validated run.json documents (and the folder's report.json, when there is one) as one
    HTML page; ``files`` reads the histories beside them (none: the page has no timelines)."""
    for i, run in enumerate(runs):
        validate_run(run, source=f"runs[{i}]")
    if index is not None:
        validate_report(index, source="index")
    model = page_model(runs, index, files if files is not None else ReportFiles(None))
    timelines = model.pop("timelines")
    template = _environment().get_template("report.html.j2")
    return template.render(**model, css=Markup(_asset("report.css")),
                           js=Markup("\n".join(_asset(name) for name in _SCRIPTS)),
                           timelines_json=Markup(script_json(timelines)))


def script_json(value: object) -> str:
    """``value`` as JSON that cannot end the ``<script>`` element it is placed in."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).translate(_SCRIPT_SAFE)


@functools.cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.PackageLoader("durable_harness.reports", "templates"), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


@functools.cache
def _asset(name: str) -> str:
    text = resources.files("durable_harness.reports").joinpath("templates", name).read_text(encoding="utf-8")
    if "</script" in text.lower() or "</style" in text.lower():
        raise ValueError(f"durable_harness/reports/templates/{name} must not contain a closing script or style tag")
    return text
