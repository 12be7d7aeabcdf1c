"""The stale-writer rules of unauthorized_calls (``checkers._writers``) on hand-made histories of
two workers: each rule fails on its bug and passes on the same history without it."""

from __future__ import annotations

from durable_harness.harness import History
from durable_harness.harness.checkers._writers import stale_writes
from tests.core.test_unauthorized_calls import JOB, judge, world


def write(h: History, t: float, worker: str, route: str = "/wp/v2/posts/7", *, committed: bool = True,
          status: int = 200) -> int:
    op = h.invoke(t, worker, {"service": "wordpress", "method": "POST", "route": route,
                              "credential": "editor/app-password#1"})
    h.complete(t, op, "ok" if status < 400 else "fail", {"status": status, "committed": committed})
    return op


def held_write(h: History, t_sent: float, worker: str, others: list[tuple[float, str]], t_landed: float,
               *, committed: bool = True) -> int:
    """A write sent at ``t_sent``, held while ``others`` write, and committed at ``t_landed``."""
    op = h.invoke(t_sent, worker, {"service": "wordpress", "method": "POST", "route": "/wp/v2/posts",
                                   "credential": "editor/app-password#1"})
    for t, other in others:
        write(h, t, other)
    h.complete(t_landed, op, "ok" if committed else "fail", {"status": 201 if committed else 409, "committed": committed})
    return op


def leases(h: History, ttl: float) -> None:
    h.append(0.0, "note", "harness", {"leases": {"worker-1": ttl, "worker-2": ttl}})


def test_a_write_that_lands_after_a_takeover_it_was_sent_before_is_stale() -> None:
    h = History()
    write(h, 1.0, "worker-1", "/wp/v2/media")
    op = held_write(h, 2.0, "worker-1", [(25.0, "worker-2")], 30.0)
    found = stale_writes(h, None)
    assert [s.write.op for s in found] == [op] and found[0].other.process == "worker-2"
    result = judge(h, world())
    assert result.verdict == "fail" and "stale writer" in result.because and len(result.witnesses) == 2


def test_the_same_write_refused_by_a_fencing_gateway_changed_nothing() -> None:
    h = History()
    write(h, 1.0, "worker-1", "/wp/v2/media")
    held_write(h, 2.0, "worker-1", [(25.0, "worker-2")], 30.0, committed=False)
    assert stale_writes(h, None) == [] and judge(h, world()).verdict == "pass"


def test_a_write_within_another_workers_lease_is_stale_only_when_a_lease_is_declared() -> None:
    h = History()
    write(h, 1.0, "worker-1")
    write(h, 4.0, "worker-2")
    write(h, 6.0, "worker-1")
    assert stale_writes(h, None) == []  # nothing overlapped, and no lease to hold the writers to
    leases(h, 10.0)
    assert len(stale_writes(h, 10.0)) == 2 and judge(h, world()).verdict == "fail"


def test_a_takeover_after_the_lease_ran_out_is_no_stale_writer() -> None:
    h = History()
    leases(h, 10.0)
    write(h, 1.0, "worker-1")
    write(h, 11.0, "worker-2")  # 10 s after worker-1's last write: its lease ran out
    write(h, 25.0, "worker-1")  # and back, after worker-2's ran out too
    assert stale_writes(h, 10.0) == [] and judge(h, world()).verdict == "pass"


def test_one_worker_is_never_a_stale_writer() -> None:
    h = History()
    write(h, 1.0, "worker-1")
    held_write(h, 2.0, "worker-1", [(3.0, "worker-1")], 4.0)
    assert stale_writes(h, 1.0) == [] and judge(h, world(), JOB).verdict == "pass"


def test_a_held_writes_lease_runs_from_when_it_was_sent() -> None:
    """Worker-1 sends a write at 2 s and is paused past its lease; the write lands at 30 s, before
    anyone else wrote (a fencing gateway had nothing newer to refuse it for), and worker-2, which
    took the job over, writes at 32 s: the held write renewed nothing while it was held."""
    h = History()
    leases(h, 10.0)
    write(h, 1.0, "worker-1", "/wp/v2/media")
    held_write(h, 2.0, "worker-1", [], 30.0)
    write(h, 32.0, "worker-2")
    assert stale_writes(h, 10.0) == [] and judge(h, world()).verdict == "pass"
    write(h, 35.0, "worker-1")  # but a write 3 s after worker-2 sent its own is within worker-2's lease
    assert [s.write.process for s in stale_writes(h, 10.0)] == ["worker-1"] and judge(h, world()).verdict == "fail"
