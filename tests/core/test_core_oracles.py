"""The core oracles hold for every workload: a workload adds what it maps, it never removes a core
checker, and "never twice" judges every kind of effect it maps, on any service, with witnesses."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from durable_harness.harness import History, load_scenario
from durable_harness.harness.checkers import CheckInput, applicable, checkers, run_checkers
from durable_harness.harness.workloads import Effect, get_workload, register_workload, workload_names

SCENARIO = load_scenario(Path(__file__).parents[2] / "durable_harness" / "scenarios" / "baseline.yaml")
NAMED_DUPLICATES = {"duplicate_drafts", "duplicate_media", "duplicate_effects"}


def _messages(truth: Any) -> list[Effect]:
    """A notifier's messages: one effect per message, by the role it announces."""
    return [Effect(kind="message", service="notifier", route="/messages", job_id=str(m["job_id"]), task_version="1",
                   role=str(m["role"]), id=int(m["id"]), created_at=float(m["at"]), deleted_at=None,
                   operation_key=None, record=m)
            for m in (truth.get("notifier") or {}).get("messages", [])]


if "test-notifier" not in workload_names():  # a workload of a team's own: one message per finished job
    register_workload(dataclasses.replace(get_workload("article"), name="test-notifier", effects=_messages,
                                          creates={"notify": "message"}, kinds=None))
NOTIFIER = get_workload("test-notifier")
JOB = {"job_id": "job-n", "task_version": "1", "workload": "test-notifier"}


def test_every_core_checker_applies_to_every_workload() -> None:
    core = {c.name for c in checkers() if c.applies is None}
    assert core >= {"abandoned_jobs", "invalid_reports", "unauthorized_calls", "wrong_outcome", "faults_fired"}
    for name in ("article", "coding", "test-notifier"):
        assert core <= set(applicable(get_workload(name))), name


def test_each_duplicate_rule_applies_where_its_kind_is_mapped() -> None:
    assert NAMED_DUPLICATES & set(applicable(get_workload("article"))) == {"duplicate_drafts", "duplicate_media"}
    assert NAMED_DUPLICATES & set(applicable(get_workload("coding"))) == set()
    assert NAMED_DUPLICATES & set(applicable(NOTIFIER)) == {"duplicate_effects"}
    assert NOTIFIER.effect_kinds == ("message",)


def _sent(history: History, mid: int) -> None:
    op = history.invoke(float(mid), "worker-1", {"service": "notifier", "method": "POST", "route": "/messages"})
    history.complete(float(mid), op, "ok", {"status": 201, "body": {"id": mid}, "committed": True})


def test_a_new_workloads_effect_done_twice_is_caught_with_witnesses_and_no_checker_of_its_own() -> None:
    history = History()
    for mid in (1, 2):
        _sent(history, mid)
    twice = {"notifier": {"messages": [{"id": 1, "job_id": "job-n", "role": "done", "at": 1.0},
                                       {"id": 2, "job_id": "job-n", "role": "done", "at": 2.0}]}}
    result = run_checkers(CheckInput(history, twice, None, SCENARIO, JOB, []), ["duplicate_effects"])[0]
    assert (result.verdict, result.count) == ("fail", 1), result
    assert "job-n v1 done: messages [1, 2]" in result.because
    assert [w.index for w in result.witnesses] == [1, 3] and "created id 2" in result.witnesses[1].summary
    once = {"notifier": {"messages": twice["notifier"]["messages"][:1]}}
    assert run_checkers(CheckInput(history, once, None, SCENARIO, JOB, []), ["duplicate_effects"])[0].verdict == "pass"
