"""WordPress as a busy site, through scenarios: seeding and the editor are service options, checked
by the scenario schema (a wrong one is one line, exit 3); the editor acts on the run's clock from
the run's seed; the reference passes; each new mutant is caught with a witness."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from durable_harness.harness import ScenarioError, load_scenario, run_scenario
from durable_harness.harness._run import run_once

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

REPO = Path(__file__).parents[2]
SCENARIOS = REPO / "durable_harness" / "scenarios"

BUSY = """id: busy-test
title: A busy site for a test
covers: seeding and the editor
workload: {kind: article}
services:
  wordpress:
%s
faults: []
expect: {outcome: needs_human}
must_catch: []
"""


def _write(tmp_path: Path, options: str) -> Path:
    path = tmp_path / "busy-test.yaml"
    path.write_text(BUSY % "\n".join("    " + line for line in options.strip().splitlines()))
    return path


@pytest.mark.parametrize(("options", "where", "value"), [
    ("seed:\n  posts:\n    - {count: 2, ownr: other_job}", "services.wordpress.seed.posts[0]", "'ownr'"),
    ("seed:\n  posts:\n    - {count: 2, owner: my_job}", "services.wordpress.seed.posts[0].owner", "'my_job'"),
    ("seed:\n  pages: []", "services.wordpress.seed", "'pages'"),
    ("editor: {every_s: 0}", "services.wordpress.editor.every_s", "0"),
    ("editor: {do: [delete_everything]}", "services.wordpress.editor.do[0]", "'delete_everything'"),
])
def test_an_unknown_seeding_option_is_one_line_naming_file_path_and_value(tmp_path: Path, options: str, where: str,
                                                                         value: str) -> None:
    path = _write(tmp_path, options)
    with pytest.raises(ScenarioError) as raised:
        load_scenario(path)
    message = str(raised.value)
    assert "\n" not in message and message.startswith(f"{path}: {where}") and value in message
    result = subprocess.run([sys.executable, "-m", "durable_harness.harness.cli", "run", "--scenario", str(path), "--report",
                             str(tmp_path / "r")], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 3 and where in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_the_editor_acts_on_the_virtual_clock_and_the_run_is_deterministic(tmp_path: Path) -> None:
    path = _write(tmp_path, """
seed:
  posts: [{count: 5, owner: other_tenant, title: same}]
editor: {every_s: 7, start_s: 3, actions: 4}""")
    scenario = load_scenario(path)
    doc, history = run_once(scenario, "reference")
    assert doc["verdict"] == "pass", doc["reproduce"]
    notes = [e for e in history.of_type("note") if e.process == "wordpress-editor"]
    assert [round(e.time_s, 6) for e in notes] == [3.0, 10.0, 17.0, 24.0]
    by_colleague = [p for p in doc["truth"]["wordpress"]["posts"] if p["created_by"] != "seed (before the run)"
                    and p["created_by"].startswith("colleague")]
    assert len(by_colleague) == sum(1 for e in notes if e.data["editor"]["action"] == "create_post")
    again, _ = run_once(scenario, "reference")
    assert again["history"]["digest"] == doc["history"]["digest"]
    other_seed, _ = run_once(scenario, "reference", seed=scenario.default_seed + 1)
    assert other_seed["history"]["digest"] != doc["history"]["digest"]


def test_the_reference_reads_past_the_first_page_to_find_its_draft() -> None:
    doc, history = run_once(load_scenario(SCENARIOS / "busy-reconcile-past-first-page.yaml"), "reference")
    assert doc["verdict"] == "pass"
    pages = [dict(e.data.get("query") or []).get("page") for e, _ in history.operations()
             if e.data.get("route") == "/wp/v2/posts" and e.data.get("method") == "GET"]
    assert "2" in pages


@pytest.mark.parametrize(("mutant", "scenario", "checker"), [
    ("title-reconcile", "busy-lost-draft-response", "wrong_checkpoint_advances"),
    ("title-reconcile", "busy-lost-media-response", "wrong_outcome"),
    ("first-page-reconcile", "busy-reconcile-past-first-page", "duplicate_drafts"),
    ("error-means-not-applied", "draft-502-after-commit", "duplicate_drafts"),
    ("error-means-not-applied", "media-500-after-commit", "duplicate_media"),
])
def test_each_new_mutant_is_a_safety_failure_with_a_witness(mutant: str, scenario: str, checker: str) -> None:
    doc = run_scenario(load_scenario(SCENARIOS / f"{scenario}.yaml"), f"mutant:{mutant}")
    assert doc["exit_code"] == 1, doc["reproduce"]
    found = next(c for c in doc["checkers"] if c["name"] == checker)
    assert found["verdict"] == "fail" and found["witnesses"], found
    reference = run_scenario(load_scenario(SCENARIOS / f"{scenario}.yaml"), "reference")
    assert reference["exit_code"] == 0, reference["reproduce"]
