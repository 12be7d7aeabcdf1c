"""How the bundled reference waits between steps when it is served as a process (``serve.Idle`` and
the baton): longer while steps find nothing, never past a third of its lease, back to one second
when a step did something or the harness posted work; a report of the harness brings no work and
does not end the wait."""

from __future__ import annotations

import threading

from durable_harness.candidates.reference.serve import IDLE_MAX_S, POLL_S, Baton, Idle


def test_the_wait_doubles_while_steps_find_nothing_and_stops_at_its_bound() -> None:
    idle = Idle(None)
    assert [idle.next() for _ in range(5)] == [POLL_S, 2 * POLL_S, 4 * POLL_S, IDLE_MAX_S, IDLE_MAX_S]
    idle.reset()
    assert idle.next() == POLL_S


def test_a_job_held_while_it_waits_keeps_its_lease() -> None:
    idle = Idle(10.0)
    waits = [idle.next() for _ in range(6)]
    assert max(waits) <= 10.0 / 3 and waits[:2] == [POLL_S, 2 * POLL_S]


def test_a_report_does_not_end_the_wait_and_work_does() -> None:
    baton = Baton()
    baton.call(lambda: {"outcome": "running"}, anytime=False, work=False)  # the harness asks for a report
    assert baton.idle_until_called(0.01) is False
    waiter: list[bool] = []
    thread = threading.Thread(target=lambda: waiter.append(baton.idle_until_called(30.0)))
    thread.start()
    baton.call(lambda: {"job_id": "j1"})  # a job: work
    thread.join(30.0)
    assert waiter == [True]
