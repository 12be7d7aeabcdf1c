"""side_effects: every created object from the world's truth, duplicates grouped by role."""

from __future__ import annotations

from typing import Any

from durable_harness.reports._effects import side_effects

MARK = "<!-- durable-harness job=j version=1 role=article -->"


def post(pid: int, at: float, key: str | None = "j/v1/draft", **extra: Any) -> dict[str, Any]:
    return {"id": pid, "created_at": at, "created_by": "editor/app-password#1", "status": "draft",
            "content": MARK + "<p>x</p>", "meta": {"operation_key": key} if key else {}, **extra}


def creation(op: int, pid: int, start: int, outcome: str = "ok", service: str = "wordpress") -> list[dict[str, Any]]:
    return [{"index": start, "time_s": 1.0, "type": "invoke", "process": "worker-1", "op": op,
             "data": {"method": "POST", "service": service, "route": "/wp/v2/posts"}},
            {"index": start + 1, "time_s": 1.0, "type": outcome, "process": "worker-1", "op": op,
             "data": {"status": 201, "committed": True, "body": {"id": pid}}}]


def test_duplicates_of_one_role_stand_together_with_their_creating_operations() -> None:
    truth = {"openai": {"watermarks": {MARK: {"job_id": "j", "task_version": "1", "role": "article"}}},
             "wordpress": {"posts": [post(4, 6.0), post(5, 37.0, key="j/v1/draft-again", trashed_at=40.0)]}}
    history = creation(31, 4, 82, "info") + creation(32, 5, 85)
    (table,) = side_effects(truth, history)
    assert (table.service, table.kind, table.count, table.duplicates) == ("wordpress", "posts", 2, 1)
    (group,) = table.groups
    assert group.key == "j v1 article" and group.duplicate  # one role, whatever the keys the candidate chose
    first, second = group.effects
    assert (first.id, first.operation_key, first.created_by) == ("4", "j/v1/draft", "editor/app-password#1")
    assert first.creator is not None and (first.creator.op, first.creator.invoke, first.creator.outcome) == (31, 82, "info")
    assert second.status == "draft, trashed" and second.creator is not None and second.creator.completion == 86


def test_without_a_role_records_group_by_operation_key_or_stand_alone() -> None:
    truth = {"wordpress": {"media": [
        {"id": 1, "created_at": 1.5, "created_by": "a", "meta": {"operation_key": "m1"}},
        {"id": 2, "created_at": 3.0, "created_by": "a", "meta": {"operation_key": "m1"}},
        {"id": 3, "created_at": 4.5, "created_by": "a", "meta": {}},
    ]}}
    (table,) = side_effects(truth)
    assert [(g.key, len(g.effects)) for g in table.groups] == [("operation key m1", 2), ("media 3", 1)]
    assert all(e.creator is None for g in table.groups for e in g.effects)  # no history given


def test_only_lists_of_created_records_are_pictured() -> None:
    truth = {"openai": {"sessions": [{"id": "sess_1", "created_at": 1767603600}], "payloads": {}},
             "wordpress": {"app_passwords": [{"label": "x", "issued_at": 0.0}], "posts": [], "mutations": 7},
             "executor": "not a mapping"}
    assert side_effects(truth) == []


def test_a_creation_on_another_service_or_route_is_not_credited() -> None:
    truth = {"wordpress": {"posts": [post(4, 6.0)]}}
    history = creation(1, 4, 0, service="elsewhere")
    (table,) = side_effects(truth, history)
    assert table.groups[0].effects[0].creator is None
