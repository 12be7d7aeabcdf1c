"""The reports package's front door: a sorted ``__all__``, documented modules, the schemas shipped."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from pathlib import Path

import pytest

from durable_harness import reports

PUBLIC = [
    "Finding", "HTML_FILE", "REPORT_FILE", "REPORT_FORMAT", "RUN_FORMAT", "Report", "ReportFiles", "ReportMixError",
    "check_unmixed", "clean_allure_dir", "findings", "load_report", "load_runs", "render_html", "render_junit",
    "render_summary", "validate_report", "validate_run", "write_allure", "write_outputs",
]


def test_all_is_sorted_and_complete() -> None:
    assert reports.__all__ == sorted(reports.__all__)
    assert reports.__all__ == PUBLIC
    for name in reports.__all__:
        assert getattr(reports, name) is not None, name
    assert (reports.RUN_FORMAT, reports.REPORT_FORMAT) == ("durable-harness/run@2", "durable-harness/report@1")
    assert reports.REPORT_FILE == "report.json"


def test_every_module_says_what_it_does_and_does_not() -> None:
    for info in pkgutil.iter_modules(reports.__path__):
        module = importlib.import_module(f"durable_harness.reports.{info.name}")
        doc = module.__doc__ or ""
        assert "not" in doc, f"reports.{info.name} needs a docstring saying what it does not do"
        assert getattr(module, "__all__", None) == sorted(module.__all__), info.name


def test_the_front_door_documents_every_function_it_exports() -> None:
    doc = reports.__doc__ or ""
    for name in reports.__all__:
        if callable(getattr(reports, name)) and not isinstance(getattr(reports, name), type):
            assert f"{name}(" in doc, f"reports.__doc__ does not show the signature of {name}"


def test_modules_stay_small() -> None:
    for path in Path(reports.__file__).parent.glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 400, path.name


@pytest.mark.parametrize("name", ["run.schema.json", "report.schema.json"])
def test_schemas_are_package_data(name: str) -> None:
    from importlib import resources

    assert resources.files("durable_harness.reports").joinpath(name).is_file()


def test_report_is_a_frozen_record() -> None:
    report = reports.Report(index=None, runs=[])
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.index = {}  # type: ignore[misc]


def test_mix_error_is_a_value_error() -> None:
    assert issubclass(reports.ReportMixError, ValueError)
