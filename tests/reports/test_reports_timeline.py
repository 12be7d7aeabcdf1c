"""timeline_data and entry_summary: a history as columns a script can draw, one lane per process."""

from __future__ import annotations

from typing import Any

from _histories import synthetic_history
from durable_harness.reports._timeline import DETAIL_CHARS, entry_summary, timeline_data


def entry(kind: str, data: dict[str, Any], *, process: str = "worker-1", op: int | None = None) -> dict[str, Any]:
    return {"index": 0, "time_s": 1.5, "type": kind, "process": process, "op": op, "data": data}


def test_lanes_follow_first_appearance_whatever_the_process_is_called() -> None:
    history = [entry("phase", {"phase": "chaos"}, process="harness"), entry("invoke", {}, process="reviewer"),
               entry("invoke", {}, process="worker-1"), entry("ok", {}, process="reviewer")]
    for n, e in enumerate(history):
        e["index"] = n
    data = timeline_data(history, witnesses=[2, 99])
    assert data["lanes"] == ["harness", "reviewer", "worker-1"]
    assert data["l"] == [0, 1, 2, 1] and data["types"] == ["phase", "invoke", "ok"]
    assert data["w"] == [2]  # a witness that is not in this history is dropped
    assert data["o"] == [-1, -1, -1, -1]


def test_summaries_say_what_an_entry_records() -> None:
    cases = [
        (entry("invoke", {"method": "POST", "service": "wordpress", "route": "/wp/v2/posts",
                          "credential": "editor/app-password#1"}), "POST wordpress/wp/v2/posts as editor/app-password#1"),
        (entry("invoke", {"method": "POST", "service": "candidate", "route": "/webhooks/openai",
                          "type": "agent.session.created"}), "POST candidate/webhooks/openai agent.session.created"),
        (entry("info", {"status": 201, "committed": True, "lost": "timeout", "body": {"id": 4}}),
         "info 201 committed id 4 response lost (timeout)"),
        (entry("fail", {"status": 429, "committed": False, "body": {"code": "rest_too_many_requests"}}),
         "fail 429 rest_too_many_requests"),
        (entry("fault", {"kind": "crash", "at": "POST wordpress/wp/v2/posts #1", "point": "after", "target": "worker-1"}),
         "fault crash at POST wordpress/wp/v2/posts #1 (after) on worker-1"),
        (entry("report", {"outcome": "running", "checkpoint": {"phase": "draft_created"},
                          "operations": [{"state": "CONFIRMED"}, {"state": "UNKNOWN"}, {"state": "CONFIRMED"}]}),
         "report: outcome running, phase draft_created; ledger 2 CONFIRMED, 1 UNKNOWN"),
        (entry("event", {"type": "agent.session.in_progress", "n": 3}), "event agent.session.in_progress #3"),
        (entry("clock", {"from_s": 66.0, "to_s": 300.0}), "clock jumps 66.0 s → 300.0 s"),
        (entry("crash", {"because": "crashed after the fake committed"}), "crash: crashed after the fake committed"),
        (entry("approve", {"by": "reviewer", "version": 2}), 'approve {"by":"reviewer","version":2}'),
    ]
    for e, expected in cases:
        assert entry_summary(e) == expected


def test_details_are_short_and_keep_only_the_scalars_of_a_body() -> None:
    big = {"title": "t", "content": {"raw": "x" * 5000}, "status": "draft", "meta": {"operation_key": "k"}}
    data = timeline_data([entry("invoke", {"method": "POST", "body": big})])
    assert len(data["d"][0]) <= DETAIL_CHARS
    assert '"title":"t"' in data["d"][0] and "xxxx" not in data["d"][0] and '"…":"2 more"' in data["d"][0]


def test_ten_thousand_entries_stay_compact() -> None:
    data = timeline_data(synthetic_history(10_000))
    assert len(data["i"]) == 10_000 and len(data["s"]) == 10_000
    assert max(len(s) for s in data["s"]) < 200
