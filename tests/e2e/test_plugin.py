"""The pytest plugin through pytester: scenario files become tests; failures read as failures."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]


def copy(pytester: pytest.Pytester, name: str) -> None:
    (pytester.path / name).write_text((REPO / "scenarios" / name).read_text())


def test_scenarios_pass_for_the_reference(pytester: pytest.Pytester) -> None:
    copy(pytester, "baseline.yaml")
    copy(pytester, "lost-draft-response.yaml")
    result = pytester.runpytest("--dh-candidate=reference", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_a_caught_mutant_is_a_failure_with_the_reproduce_command(pytester: pytest.Pytester) -> None:
    copy(pytester, "lost-draft-response.yaml")
    result = pytester.runpytest("--dh-candidate=mutant:blind-retry", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*duplicate_drafts: fail*", "*reproduce: durable-harness run --candidate mutant:blind-retry*"])


def test_a_malformed_scenario_is_a_collection_error_naming_the_field(pytester: pytest.Pytester) -> None:
    text = (REPO / "scenarios" / "baseline.yaml").read_text().replace("outcome: needs_human", "outcome: done")
    (pytester.path / "bad.yaml").write_text(text)
    result = pytester.runpytest("--dh-candidate=reference", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*bad.yaml: expect.outcome: 'done' is invalid*"])


def test_without_the_option_yaml_files_are_ignored(pytester: pytest.Pytester) -> None:
    copy(pytester, "baseline.yaml")
    pytester.makepyfile("def test_fixture(durable_harness_run):\n    assert callable(durable_harness_run)\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
