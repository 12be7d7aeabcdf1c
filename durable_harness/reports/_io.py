"""Read a report folder and write the rendered outputs beside it.

A report folder holds the index ``report.json`` (when the command line wrote one) and one
sub-folder per scenario, each with its canonical ``run.json`` and the history files it points at.
``load_report`` validates the index and every ``*/run.json``, refuses a folder that mixes
candidates or harnesses or disagrees with its index (``ReportMixError``), and returns a ``Report``
with the runs in report order (scenario id, candidate spec, seed). ``write_outputs`` applies the same
refusal, renders ``summary.md``, ``junit.xml`` and ``report.html`` (whose timelines it reads from
the histories in the folder) and replaces each atomically; the command line calls it after a run,
and ``durable-harness render DIR`` calls both to rebuild the outputs without rerunning anything.

This module does not run scenarios, write ``report.json`` (the command line does), merge shards, or
write Allure results (``allure`` does). A folder with neither an index nor a run is an error, not an
empty green report: a run that never happened cannot have passed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._documents import run_key, validate_report, validate_run
from ._histories import ReportFiles
from ._mix import check_unmixed
from .html import render_html
from .junit import render_junit
from .markdown import render_summary

__all__ = ["HTML_FILE", "JUNIT_FILE", "REPORT_FILE", "RUN_FILE", "Report", "SUMMARY_FILE", "load_report",
           "load_runs", "write_outputs"]

RUN_FILE = "run.json"
REPORT_FILE = "report.json"
SUMMARY_FILE = "summary.md"
JUNIT_FILE = "junit.xml"
HTML_FILE = "report.html"


@dataclass(frozen=True)
class Report:
    """A loaded report folder: its index (``None`` when it has no report.json) and its validated
    runs, in report order."""

    index: dict[str, Any] | None
    runs: list[dict[str, Any]]


def load_report(report_dir: str | os.PathLike[str]) -> Report:
    """The index and every ``<scenario>/run.json`` of ``report_dir``, validated and checked to be
    about one candidate under one harness."""
    root = _report_dir(report_dir)
    index_file = root / REPORT_FILE
    index = _read(index_file, root, validate_report, "run the scenarios again into a fresh report folder") \
        if index_file.is_file() else None
    files = sorted(root.glob(f"*/{RUN_FILE}"))
    if not files and index is None:
        raise ValueError(
            f"report directory {str(root)!r} holds no {REPORT_FILE} and no */{RUN_FILE}; pass the directory a run "
            f"wrote its report to (one sub-directory per scenario, each with a {RUN_FILE})"
        )
    loaded = [(_read(path, root, validate_run, "run the scenario again to rewrite it"), path) for path in files]
    loaded.sort(key=lambda pair: (run_key(pair[0]), pair[1].parent.name))
    runs = [doc for doc, _ in loaded]
    check_unmixed(runs, index, source=f"report directory {str(root)!r}")
    return Report(index=index, runs=runs)


def load_runs(report_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """``load_report(report_dir).runs``: the validated runs alone, for callers that need no index."""
    return load_report(report_dir).runs


def write_outputs(report_dir: str | os.PathLike[str], runs: Sequence[Mapping[str, Any]],
                  index: Mapping[str, Any] | None = None) -> list[Path]:
    """Render ``summary.md``, ``junit.xml`` and ``report.html`` for ``runs`` (and ``index``) into
    ``report_dir``; return their paths.

    The documents are validated and checked to be unmixed, and every output is rendered before
    any is written; each file is replaced atomically, so a refused input leaves the previous
    outputs in place.
    """
    root = _report_dir(report_dir)
    for i, run in enumerate(runs):
        validate_run(run, source=f"runs[{i}]")
    if index is not None:
        validate_report(index, source="index")
    check_unmixed(runs, index, source=f"report directory {str(root)!r}")
    outputs = {SUMMARY_FILE: render_summary(runs, index), JUNIT_FILE: render_junit(runs, index),
               HTML_FILE: render_html(runs, index, ReportFiles(root))}
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


def _read(path: Path, root: Path, validate: Callable[..., None], again: str) -> dict[str, Any]:
    source = path.relative_to(root).as_posix()
    try:
        doc = json.loads(path.read_text(encoding="utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{source}: not valid JSON ({exc}); {again}") from exc
    validate(doc, source=source)
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
