"""Read the run.json documents of a report directory and write the rendered outputs beside them.

A report directory holds one sub-directory per run, each with its canonical ``run.json`` (and the
history it points at). ``load_runs`` finds ``*/run.json``, validates every document and returns them
in report order (scenario id, candidate, seed). ``write_outputs`` renders ``summary.md`` and
``junit.xml`` into the directory; the CLI calls it after a run, and ``durable-harness render DIR``
calls both to rebuild the outputs without rerunning anything.

This module does not run scenarios, merge shards, or render HTML or Allure output. An empty report
directory is an error, not an empty green report: a run that never happened cannot have passed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ._schema import run_key, validate_run
from .junit import render_junit
from .markdown import render_summary

__all__ = ["JUNIT_FILE", "RUN_FILE", "SUMMARY_FILE", "load_runs", "write_outputs"]

RUN_FILE = "run.json"
SUMMARY_FILE = "summary.md"
JUNIT_FILE = "junit.xml"


def load_runs(report_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every ``<run>/run.json`` under ``report_dir``, validated, sorted by scenario id then candidate."""
    root = _report_dir(report_dir)
    files = sorted(root.glob(f"*/{RUN_FILE}"))
    if not files:
        raise ValueError(
            f"report directory {str(root)!r} holds no */{RUN_FILE}; pass the directory a run wrote its "
            f"report to (one sub-directory per scenario, each with a {RUN_FILE})"
        )
    loaded = [(_read(path, root), path) for path in files]
    loaded.sort(key=lambda pair: (run_key(pair[0]), pair[1].parent.name))
    return [doc for doc, _ in loaded]


def write_outputs(report_dir: str | os.PathLike[str], runs: Sequence[Mapping[str, Any]]) -> list[Path]:
    """Render ``summary.md`` and ``junit.xml`` for ``runs`` into ``report_dir``; return their paths.

    Both documents are rendered before either is written, and each file is replaced atomically, so a
    bad document leaves the previous outputs in place.
    """
    root = _report_dir(report_dir)
    outputs = {SUMMARY_FILE: render_summary(runs), JUNIT_FILE: render_junit(runs)}
    written = []
    for name, text in outputs.items():
        target = root / name
        _replace(target, text)
        written.append(target)
    return written


def _report_dir(report_dir: str | os.PathLike[str]) -> Path:
    root = Path(report_dir)
    if not root.is_dir():
        raise FileNotFoundError(
            f"report directory {str(root)!r} does not exist or is not a directory; "
            "pass the directory a run wrote its report to"
        )
    return root


def _read(path: Path, root: Path) -> dict[str, Any]:
    source = path.relative_to(root).as_posix()
    try:
        doc = json.loads(path.read_text(encoding="utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{source}: not valid JSON ({exc}); run the scenario again to rewrite it") from exc
    validate_run(doc, source=source)
    result: dict[str, Any] = doc
    return result


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name!r} is not JSON (a non-finite number)")


def _replace(target: Path, text: str) -> None:
    """Write ``text`` to ``target`` atomically: a temp file in the same directory, then a rename."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(text.encode("utf-8"))
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
