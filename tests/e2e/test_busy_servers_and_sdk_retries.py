"""Two conditions of a real deployment: webhooks that arrive while the control plane is inside a
step (``services.openai.webhooks_during_steps``), and the openai SDK's own retries
(``services.openai.sdk_max_retries``), which resend a request after a lost answer on the run's
clock, with jitter from the run's seed, and without an Idempotency-Key unless one was passed."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import pytest

from durable_harness.candidates.reference import create as create_reference
from durable_harness.harness import load_scenario
from durable_harness.harness._run import run_once
from durable_harness.harness.candidate._environ import PASS_ENV
from durable_harness.harness.scenario import ScenarioError

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

REPO = Path(__file__).parents[2]
# Where the recording candidate writes, for each webhook, its id and whether a step was running: a
# file named in its environment (a candidate is a process of its own; DH_PASS_ENV passes the name on).
RECORD = "DH_TEST_WEBHOOK_RECORD"


class RecordsWhenWebhooksCome:
    """The reference, noting for each webhook whether it came while one of its steps was running."""

    def __init__(self, env: Any) -> None:
        self._plane = create_reference(env)
        self._in_step = False

    def step(self) -> bool:
        self._in_step = True
        try:
            return self._plane.step()
        finally:
            self._in_step = False

    def receive_webhook(self, headers: Any, body: bytes) -> int:
        with open(os.environ[RECORD], "a") as out:
            out.write(f"{headers.get('webhook-id')} {int(self._in_step)}\n")
        return self._plane.receive_webhook(headers, body)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._plane, name)


def factory(env: Any) -> RecordsWhenWebhooksCome:
    return RecordsWhenWebhooksCome(env)


RECORDER = f"{__name__}:factory"


def _scenario(name: str, **services: Any) -> Any:
    scenario = load_scenario(REPO / "durable_harness" / "scenarios" / name)
    return dataclasses.replace(scenario, services={**scenario.services, **services}) if services else scenario


def _recorded(path: Path) -> list[tuple[str, bool]]:
    lines = path.read_text().split("\n") if path.exists() else []
    return [(w, during == "1") for w, during in (line.split(" ") for line in lines if line)]


def _recording(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    record = tmp_path / "webhooks.txt"
    monkeypatch.setenv(RECORD, str(record))
    monkeypatch.setenv(PASS_ENV, RECORD)
    return record


def test_with_the_option_webhooks_arrive_inside_steps_and_forgeries_are_refused_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = _recording(tmp_path, monkeypatch)
    doc, history = run_once(_scenario("forged-webhook-mid-step.yaml"), RECORDER)
    assert doc["verdict"] == "pass", doc["reproduce"]
    inside = [w for w, during in _recorded(record) if during]
    assert inside, "no webhook reached the candidate while it was inside a step"
    forged = [(i, d) for i, d in history.operations() if i.data.get("forged") in ("bad_signature", "stale_timestamp")]
    assert len(forged) == 2 and all(d is not None and d.data["status"] == 400 for _, d in forged)


def test_without_the_option_webhooks_wait_for_the_step_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = _recording(tmp_path, monkeypatch)
    doc, _ = run_once(_scenario("forged-webhook-mid-step.yaml", openai={}), RECORDER)
    seen = _recorded(record)
    assert seen and not [w for w, during in seen if during]
    assert doc["verdict"] == "pass", doc["reproduce"]


def test_a_candidate_that_accepts_forgeries_is_caught_inside_a_step() -> None:
    doc, _ = run_once(_scenario("forged-webhook-mid-step.yaml"), "mutant:accept-forged-webhook")
    failed = {c["name"] for c in doc["checkers"] if c["verdict"] == "fail"}
    assert doc["verdict"] == "fail" and "accepted_forgeries" in failed


def _resends(history: Any) -> list[tuple[float, float, str]]:
    """(first time, resend time, key) of every request sent again with the same Idempotency-Key."""
    first: dict[str, float] = {}
    pairs = []
    for invoke, _ in history.operations():
        key = invoke.data.get("idempotency_key")
        if invoke.process.startswith("worker") and key:
            if key in first:
                pairs.append((first[key], invoke.time_s, str(key)))
            first.setdefault(str(key), invoke.time_s)
    return pairs


def test_the_sdk_resends_a_keyed_tool_result_on_the_runs_clock_and_it_is_applied_once() -> None:
    doc, history = run_once(_scenario("sdk-retries-tool-result.yaml"), "reference")
    assert doc["verdict"] == "pass", doc["reproduce"]
    resends = _resends(history)
    assert len(resends) == 1
    sent, again, _ = resends[0]
    assert 0.375 <= again - sent <= 0.5  # 0.5 s less up to 25% jitter, waited on the virtual clock


def test_the_sdks_retry_jitter_comes_from_the_runs_seed() -> None:
    scenario = _scenario("sdk-retries-tool-result.yaml")
    one = _resends(run_once(scenario, "reference", seed=7)[1])
    two = _resends(run_once(scenario, "reference", seed=7)[1])
    other = _resends(run_once(scenario, "reference", seed=8)[1])
    assert one == two and one != other


def test_the_sdk_is_left_as_it_was_after_a_run() -> None:
    from openai import _base_client

    before = (_base_client.time, _base_client.random)
    run_once(_scenario("sdk-retries-tool-result.yaml"), "reference")
    assert (_base_client.time, _base_client.random) == before


def test_a_session_create_retried_by_the_sdk_is_a_second_session() -> None:
    doc, _ = run_once(_scenario("sdk-retries-session-create.yaml"), "mutant:sdk-retries-create")
    failed = {c["name"] for c in doc["checkers"] if c["verdict"] == "fail"}
    assert "resubmitted_tasks" in failed
    doc, _ = run_once(_scenario("sdk-retries-session-create.yaml"), "reference")
    assert doc["verdict"] == "pass", doc["reproduce"]


@pytest.mark.parametrize("options, field", [
    ("sdk_max_retries: 9", "sdk_max_retries"),
    ("webhooks_during_steps: sometimes", "webhooks_during_steps"),
    ("retries: 2", "retries"),
])
def test_a_bad_sessions_api_option_names_the_file_and_the_field(tmp_path: Path, options: str, field: str) -> None:
    text = (REPO / "durable_harness" / "scenarios" / "sdk-retries-tool-result.yaml").read_text()
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("    sdk_max_retries: 2", "    " + options))
    with pytest.raises(ScenarioError) as err:
        load_scenario(bad)
    message = str(err.value)
    assert str(bad) in message and field in message and "\n" not in message
