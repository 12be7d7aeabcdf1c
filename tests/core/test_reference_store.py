"""The reference's store: ``sqlite3`` for SQLite URLs, SQLAlchemy for any other, the same answers from
both; rows read again are never stale, whoever committed since (another instance on the same file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from durable_harness.candidates.reference._store import JobRow, Store

JOB = {"job_id": "job-1", "task_version": "1", "workload": "article", "input": {"topic": "t"}, "allowed_tools": ["a"]}


def _story(store: Store) -> list[Any]:
    """A sequence of writes and reads; everything read, in order."""
    seen: list[Any] = [store.add_job(JOB, {"phase": "accepted"}), store.add_job(JOB, {"phase": "other"})]
    store.add_job({**JOB, "task_version": "2"}, {"phase": "accepted"})
    job = store.jobs("job-1")[0]
    store.update_job(job, session_id="s-1", phase="session_started", checkpoint={"phase": "session_started", "b": [1]})
    store.update_job(job, resume_attempts=job.resume_attempts + 1)
    seen += [store.jobs(), store.jobs("job-1"), store.jobs("nobody"), store.job_of_session("s-1"), store.job_of_session("x")]
    for key in ("job-1/v1/draft", "job-1/v1/media:1"):
        seen.append(store.prepare(key, job, "wp_create_draft", "h" * 64))
    store.set_op("job-1/v1/draft", "SENT", attempt=True)
    store.set_op("job-1/v1/draft", "CONFIRMED", remote_id="7", receipt={"post_id": 7})
    seen += [store.op("job-1/v1/draft"), store.op("missing"), store.ops("job-1", "1"), store.ops("job-1", "2")]
    seen += [store.first_sight_of_webhook("w1", "agent.session.idle"), store.first_sight_of_webhook("w1", "agent.session.idle")]
    store.set_answer("s-1", "call-2", "job-1/v1/draft", "SENT")
    store.set_answer("s-1", "call-1", None, "SENT")
    store.set_answer("s-1", "call-2", None, "CONFIRMED")
    seen += [store.answer_state("s-1", "call-2"), store.answer_state("s-1", "nope"), store.answers_in_state("s-1", "SENT")]
    return seen


def test_sqlite3_and_sqlalchemy_answer_alike(tmp_path: Path) -> None:
    fast, general = Store(f"sqlite:///{tmp_path / 'a.sqlite'}"), Store(f"sqlite+pysqlite:///{tmp_path / 'b.sqlite'}")
    try:
        assert type(fast._db).__name__ == "_SQLite" and type(general._db).__name__ == "_SQLAlchemy"
        assert _story(fast) == _story(general)
    finally:
        fast.close()
        general.close()


def test_a_read_sees_what_another_instance_committed(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.sqlite'}"
    first, second = Store(url), Store(url)
    try:
        first.add_job(JOB, {"phase": "accepted"})
        assert [j.outcome for j in first.jobs()] == ["running"] and first.ops("job-1", "1") == []
        second.update_job(second.jobs()[0], outcome="cancelled")
        second.prepare("job-1/v1/draft", second.jobs()[0], "wp_create_draft", "h")
        assert [j.outcome for j in first.jobs("job-1")] == ["cancelled"]
        assert [o.operation_key for o in first.ops("job-1", "1")] == ["job-1/v1/draft"]
    finally:
        first.close()
        second.close()


def test_every_read_returns_new_objects(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'd.sqlite'}")
    try:
        store.add_job(JOB, {"phase": "accepted", "remote": {"media_ids": []}})
        job: JobRow = store.jobs()[0]
        job.checkpoint["remote"]["media_ids"].append(1)  # type: ignore[index]
        assert store.jobs()[0].checkpoint["remote"]["media_ids"] == []
    finally:
        store.close()


def test_an_unknown_column_is_refused(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'e.sqlite'}")
    try:
        store.add_job(JOB, {})
        with pytest.raises(ValueError, match="not columns of a job"):
            store.update_job(store.jobs()[0], colour="red")
    finally:
        store.close()
