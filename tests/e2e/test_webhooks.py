"""Webhooks reach the candidate through the World: signed, duplicated and forged on demand."""

from __future__ import annotations

from pathlib import Path

from durable_harness.harness import load_scenario
from durable_harness.harness._run import run_once

REPO = Path(__file__).parents[2]


def deliveries(name: str, candidate: str = "reference") -> list[tuple[dict, dict]]:
    doc, history = run_once(load_scenario(REPO / "durable_harness" / "scenarios" / name), candidate)
    return [(dict(i.data), dict(d.data) if d else {}) for i, d in history.operations() if i.process == "openai-webhooks"]


def test_genuine_webhooks_are_accepted_and_forgeries_refused_by_the_reference() -> None:
    seen = deliveries("forged-webhooks.yaml")
    genuine = [(i, d) for i, d in seen if not i["forged"]]
    forged = {str(i["forged"]): (i, d) for i, d in seen if i["forged"]}
    assert genuine and all(d["status"] == 200 for _, d in genuine)
    assert sorted(forged) == ["bad_signature", "replay", "stale_timestamp"]
    for kind in ("bad_signature", "stale_timestamp"):
        invoke, done = forged[kind]
        assert done["status"] == 400 and invoke["type"] == "agent.session.failed"
    replay, answered = forged["replay"]
    assert answered["status"] == 200  # a genuine signature: accepted, and ignored as already handled
    assert replay["webhook_id"] in {i["webhook_id"] for i, _ in genuine}


def test_duplicates_carry_the_same_webhook_id() -> None:
    seen = deliveries("duplicated-webhooks.yaml")
    dups = [i for i, _ in seen if i.get("duplicate")]
    assert len(dups) == 10
    firsts = {i["webhook_id"] for i, _ in seen if not i.get("duplicate")}
    assert {i["webhook_id"] for i in dups} <= firsts


def test_the_sdk_verifies_on_virtual_time_only_during_a_run() -> None:
    from openai.lib import _webhooks

    before = _webhooks.time
    deliveries("baseline.yaml")
    assert _webhooks.time is before
