"""Reports: everything rendered from a report folder's canonical documents.

A report folder holds ``report.json`` (the index the command line writes: candidate, harness,
command, start and end, the scenarios planned and whether the report is partial) and one
sub-folder per scenario with its ``run.json`` (format ``durable-harness/run@2``) and history files.

The API::

    validate_run(doc, *, source="run.json") -> None           # ValueError naming each JSON path
    validate_report(doc, *, source="report.json") -> None     # the same, for the index
    check_unmixed(runs, index=None, *, source="the report") -> None   # ReportMixError
    load_report(report_dir) -> Report                         # Report(index: dict | None, runs: list[dict])
    load_runs(report_dir) -> list[dict]                       # load_report(report_dir).runs
    write_outputs(report_dir, runs, index=None) -> list[Path] # summary.md, junit.xml, report.html, atomically
    render_summary(runs, index=None) -> str                   # Markdown: verdict, top findings, matrix, ...
    render_junit(runs, index=None) -> str                     # JUnit XML
    render_html(runs, index=None, files=None) -> str          # report.html; files=ReportFiles(dir) for timelines
    write_allure(allure_dir, runs, index=None, files=None) -> list[Path]  # Allure result files
    clean_allure_dir(allure_dir) -> None                      # remove an earlier run's Allure results
    findings(runs) -> list[Finding]                           # what did not pass, most serious first

``RUN_FORMAT``, ``REPORT_FORMAT``, ``REPORT_FILE`` and ``HTML_FILE`` name what the command line
writes; ``ReportFiles(report_dir)`` reads the histories beside the runs.
``ReportMixError`` (a ``ValueError``) is raised by ``load_report``, ``write_outputs`` and
``check_unmixed`` when runs are about different candidates (spec or digest) or harnesses (version
or commit), or disagree with the index; its message names each group and says how to fix it (one
report folder per candidate and harness; ``--report`` a fresh folder). The renderers themselves
accept any valid documents, mixed or not, and never raise on one; verdicts and exit codes come from
``durable_harness.harness.verdict`` only.

Reporters observe; they never drive. Nothing here runs a scenario, touches a candidate, writes the
index or changes a verdict. Each output has its module: ``markdown``, ``junit``, ``html`` (with its
templates) and ``allure``.
"""

from __future__ import annotations

from ._documents import REPORT_FORMAT, RUN_FORMAT, validate_report, validate_run
from ._findings import Finding, findings
from ._histories import ReportFiles
from ._io import HTML_FILE, REPORT_FILE, Report, load_report, load_runs, write_outputs
from ._mix import ReportMixError, check_unmixed
from .allure import clean_allure_dir, write_allure
from .html import render_html
from .junit import render_junit
from .markdown import render_summary

__all__ = [
    "Finding", "HTML_FILE", "REPORT_FILE", "REPORT_FORMAT", "RUN_FORMAT", "Report", "ReportFiles", "ReportMixError",
    "check_unmixed", "clean_allure_dir", "findings", "load_report", "load_runs", "render_html", "render_junit",
    "render_summary", "validate_report", "validate_run", "write_allure", "write_outputs",
]
