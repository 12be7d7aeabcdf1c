"""The pytest plugin through pytester: scenario files become tests; failures read as failures."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

REPO = Path(__file__).parents[2]


def copy(pytester: pytest.Pytester, name: str) -> None:
    (pytester.path / name).write_text((REPO / "durable_harness" / "scenarios" / name).read_text())


def test_scenarios_pass_for_the_reference(pytester: pytest.Pytester) -> None:
    copy(pytester, "baseline.yaml")
    copy(pytester, "lost-draft-response.yaml")
    result = pytester.runpytest("--dh-candidate=reference", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_the_sweeps_are_collected_first(pytester: pytest.Pytester) -> None:
    """The longest tests first (as ``run -j`` starts them): under xdist, the other scenarios fill the
    other workers while the sweep runs, rather than one worker ending on it alone."""
    for name in ("baseline.yaml", "restart-at-every-io-point.yaml", "wordpress-down.yaml"):
        copy(pytester, name)
    result = pytester.runpytest("--dh-candidate=reference", "--collect-only", "-q", "-p", "no:cacheprovider")
    ids = [line for line in result.stdout.lines if "::" in line]
    assert [i.split("::")[-1] for i in ids] == ["restart-at-every-io-point", "baseline", "wordpress-down"], ids


@pytest.mark.parametrize("collect_only", [True, False], ids=["collect-only", "run"])
def test_the_zygote_starts_only_for_a_session_that_runs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                       collect_only: bool) -> None:
    """An editor discovers tests with ``--collect-only``, often: no zygote warms the SDK up for it
    (about 2 s of CPU each time); a session that runs scenarios starts it at once."""
    from durable_harness.harness.isolation import _zygote

    shared: list[int] = []
    monkeypatch.setattr(_zygote, "share_zygote", lambda: shared.append(1))
    copy(pytester, "baseline.yaml")
    result = pytester.runpytest("--dh-candidate=reference", "-p", "no:cacheprovider",
                                *(["--collect-only", "-q"] if collect_only else []))
    result.assert_outcomes(**({} if collect_only else {"passed": 1}))
    assert shared == ([] if collect_only else [1])
    monkeypatch.setenv("DH_CANDIDATE_MEMORY_MB", "lots")  # the settings are checked all the same
    refused = pytester.runpytest("--dh-candidate=reference", "-p", "no:cacheprovider",
                                 *(["--collect-only", "-q"] if collect_only else []))
    assert refused.ret == pytest.ExitCode.USAGE_ERROR and "DH_CANDIDATE_MEMORY_MB" in refused.stderr.str()


def test_a_caught_mutant_is_a_failure_with_the_reproduce_command(pytester: pytest.Pytester) -> None:
    copy(pytester, "lost-draft-response.yaml")
    result = pytester.runpytest("--dh-candidate=mutant:blind-retry", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*duplicate_drafts: fail*", "*reproduce: durable-harness run --candidate mutant:blind-retry*"])


def test_a_malformed_scenario_is_a_collection_error_naming_the_field(pytester: pytest.Pytester) -> None:
    text = (REPO / "durable_harness" / "scenarios" / "baseline.yaml").read_text().replace("outcome: needs_human", "outcome: done")
    (pytester.path / "bad.yaml").write_text(text)
    result = pytester.runpytest("--dh-candidate=reference", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*bad.yaml: expect.outcome: 'done' is invalid*"])


def test_without_the_option_yaml_files_are_ignored(pytester: pytest.Pytester) -> None:
    copy(pytester, "baseline.yaml")
    pytester.makepyfile("def test_fixture(durable_harness_run):\n    assert callable(durable_harness_run)\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_with_alluredir_each_scenario_is_one_allure_test_with_labels_and_attachments(pytester: pytest.Pytester) -> None:
    import json

    copy(pytester, "baseline.yaml")
    copy(pytester, "lost-draft-response.yaml")
    # In a subprocess: pytester's in-process runs drop the modules a run imported, and SQLAlchemy's
    # compiled parts do not survive being imported twice in one process.
    result = pytester.runpytest_subprocess("--dh-candidate=mutant:blind-retry", "--alluredir=out", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    results = {r["name"]: r for r in (json.loads(p.read_text()) for p in (pytester.path / "out").glob("*-result.json"))}
    assert sorted(results) == ["baseline", "lost-draft-response"]
    failed = results["lost-draft-response"]
    labels = {(label["name"], label["value"]) for label in failed["labels"]}
    assert failed["status"] == "failed" and results["baseline"]["status"] == "passed"
    assert {("verdict", "fail"), ("counter.duplicate_drafts", "1"), ("tag", "duplicate_drafts=1")} <= labels
    names = [a["name"] for a in failed["attachments"]]
    assert names == ["verdict", "because and witnesses", "history.jsonl", "timeline.html", "run.json", "reproduce"]
    history = next(a for a in failed["attachments"] if a["name"] == "history.jsonl")
    assert b'"process":"worker-1"' in (pytester.path / "out" / history["source"]).read_bytes()
    assert "Reproduce: `durable-harness run --candidate mutant:blind-retry" in failed["description"]


@pytest.mark.slow  # two explorations (one per workload) of up to 15 s each, in a pytest subprocess
def test_dh_explore_adds_one_exploration_per_workload_and_a_finding_fails_with_its_scenario(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--dh-explore=15s", "--dh-candidate=mutant:blind-retry", "-p", "no:cacheprovider",
                                           "-rA")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) + outcomes.get("passed", 0) == 2, result.stdout.str()
    assert outcomes.get("failed", 0) >= 1
    result.stdout.fnmatch_lines(["*explore[[]article[]] found a plan that breaks *", "*must_catch: []*"])


def test_dh_explore_refuses_a_budget_that_is_not_one(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--dh-explore=0s", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--dh-explore: *'0s' is not a budget*"])
