"""People act during a run: scenario actions fire once, are recorded under their actor, are part
of what the world shows, and an action that never fires makes the run unknown, as a fault does."""

from __future__ import annotations

from pathlib import Path

import pytest

from durable_harness.harness import ScenarioError, load_scenario
from durable_harness.harness._run import run_once

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

REPO = Path(__file__).parents[2]
SCENARIOS = REPO / "durable_harness" / "scenarios"


def test_an_approval_is_recorded_under_the_reviewer_and_in_the_truth() -> None:
    doc, history = run_once(load_scenario(SCENARIOS / "approval-granted-published.yaml"), "reference")
    assert doc["verdict"] == "pass" and doc["outcome"]["truth"] == "completed"
    (approve,) = [e for e in history.of_type("action")]
    assert approve.process == "reviewer" and approve.data["kind"] == "approve"
    (granted,) = doc["truth"]["people"]
    assert granted["kind"] == "approve" and granted["post_id"] == approve.data["evidence"]["post_id"]
    (entry,) = [f for f in doc["faults"] if f["kind"] == "approve"]
    assert entry["status"] == "fired" and entry["at"].startswith("reviewer: when article_finished")


def test_an_action_whose_moment_never_comes_is_coverage_and_charges_no_liveness(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The reviewer would approve only after the run's end: the approval is not reached (coverage),
    and the job is held to what a correct control plane leaves when nobody approves (a draft that
    awaits approval), not to 'completed'. --strict-coverage makes it unknown."""
    text = (SCENARIOS / "approval-granted-published.yaml").read_text().replace("when: article_finished", "at_s: 999999")
    (tmp_path / "late.yaml").write_text(text.replace("id: approval-granted-published", "id: approval-too-late"))
    doc, _ = run_once(load_scenario(tmp_path / "late.yaml"), "reference")
    verdicts = {c["name"]: c for c in doc["checkers"]}
    assert verdicts["faults_fired"]["verdict"] == "pass" and "approve" in verdicts["faults_fired"]["because"]
    assert verdicts["abandoned_jobs"]["verdict"] == "pass", verdicts["abandoned_jobs"]["because"]
    assert "never took effect" in verdicts["abandoned_jobs"]["because"] and doc["exit_code"] == 0
    assert doc["faults"][0]["status"] == "not_reached" and doc["coverage"]["ratio"] == 0.0
    monkeypatch.setenv("DH_STRICT_COVERAGE", "1")
    strict, _ = run_once(load_scenario(tmp_path / "late.yaml"), "reference")
    assert strict["exit_code"] == 2 and strict["coverage"]["strict"] is True


def test_a_cancel_in_flight_reaches_the_candidate_during_its_own_request() -> None:
    doc, history = run_once(load_scenario(SCENARIOS / "cancel-while-draft-in-flight.yaml"), "reference")
    assert doc["verdict"] == "pass" and doc["claims"]["outcome"] == "cancelled"
    (cancel,) = history.of_type("action")
    draft = next(i for i, _ in history.operations() if i.data.get("route") == "/wp/v2/posts" and i.data["method"] == "POST")
    assert cancel.data["op"] == draft.op and cancel.data["evidence"]["acknowledged"] is True
    ledger = {o["kind"]: o["state"] for o in doc["claims"]["operations"]}
    assert ledger["wp_create_draft"] == "CONFIRMED"  # settled by lookup, and reported


@pytest.mark.parametrize(("change", "says"), [
    (("kind: approve", "kind: approve_everything"), "actions[0].kind: 'approve_everything' is invalid"),
    (("delay_s: 60", "delay_s: 60\n    at_s: 5"), "actions[0]: give exactly one trigger of at, when and at_s"),
    (("when: article_finished", "when: article_published"), "actions[0].when: 'article_published' is invalid"),
])
def test_a_bad_action_is_one_line_naming_file_path_and_value(tmp_path: Path, change: tuple[str, str], says: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text((SCENARIOS / "approval-granted-published.yaml").read_text().replace(*change))
    with pytest.raises(ScenarioError) as err:
        load_scenario(bad)
    assert str(err.value).startswith(f"{bad}: ") and says in str(err.value) and "\n" not in str(err.value)


def test_the_run_does_not_end_before_a_retry_after_the_world_sent_has_passed() -> None:
    """A 503 with Retry-After: 30 on the publish: a candidate that waits it out before it looks the
    publish up again must get its time; the run's last phases come after the 30 seconds."""
    doc, history = run_once(load_scenario(SCENARIOS / "approval-expired.yaml"), "reference")
    assert doc["verdict"] == "pass"
    refused_at = next(f["evidence"][0]["at_s"] for f in doc["faults"] if f["kind"] == "http_error")
    final = next(e.time_s for e in history.of_type("phase") if e.data.get("phase") == "final_reads")
    assert final >= refused_at + 30.0, (refused_at, final)
