"""Reports: everything rendered from the canonical per-scenario ``run.json`` documents.

``validate_run`` checks one document against the shipped ``run.schema.json`` and the invariants a
schema cannot state; ``render_summary`` (Markdown for CI job pages) and ``render_junit`` (JUnit XML)
turn validated documents into text; ``load_runs`` and ``write_outputs`` read a report directory and
write ``summary.md`` and ``junit.xml`` into it, so outputs can be rebuilt without rerunning.

Reporters observe; they never drive. Nothing here runs a scenario, touches a candidate or changes a
verdict. HTML and Allure renderers, when added, belong in modules of their own.
"""

from __future__ import annotations

from ._io import load_runs, write_outputs
from ._schema import validate_run
from .junit import render_junit
from .markdown import render_summary

__all__ = ["load_runs", "render_junit", "render_summary", "validate_run", "write_outputs"]
