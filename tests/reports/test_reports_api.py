"""The reports package's front door: a sorted ``__all__``, documented modules, the schema shipped."""

from __future__ import annotations

import importlib
import pkgutil

import reports

PUBLIC = ["load_runs", "render_junit", "render_summary", "validate_run", "write_outputs"]


def test_all_is_sorted_and_complete() -> None:
    assert reports.__all__ == sorted(reports.__all__)
    assert reports.__all__ == PUBLIC
    for name in reports.__all__:
        assert callable(getattr(reports, name)), name


def test_every_module_says_what_it_does_and_does_not() -> None:
    for info in pkgutil.iter_modules(reports.__path__):
        module = importlib.import_module(f"reports.{info.name}")
        doc = module.__doc__ or ""
        assert "not" in doc, f"reports.{info.name} needs a docstring saying what it does not do"
        assert getattr(module, "__all__", None) == sorted(module.__all__), info.name


def test_schema_is_package_data() -> None:
    from importlib import resources

    assert resources.files("reports").joinpath("run.schema.json").is_file()
