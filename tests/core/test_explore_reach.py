"""What guides the search: the lines of the candidate's code an instance ran (only the candidate's,
each once), the shapes of what a run did (read from its history, for any candidate), the guide
that keeps the plans reaching something new, and a strategy that stays consistent while the
corpus of those plans grows under it."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from hypothesis import HealthCheck, find, settings

from durable_harness.harness._history import History
from durable_harness.harness.candidate._spec import python_code_roots
from durable_harness.harness.explore import Plan
from durable_harness.harness.explore._explorer import _crashed_out
from durable_harness.harness.explore._reach import Guide, history_shapes, route_pattern
from durable_harness.harness.explore._strategies import Channel, plans
from durable_harness.harness.isolation._reach import LineReach

HERE = Path(__file__).resolve()


def _traced(reach: LineReach, fn: object) -> None:
    reach.start()
    try:
        fn()  # type: ignore[operator]
    finally:
        sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type]


def _mine(n: int) -> int:
    total = 0
    for i in range(n):
        total += i
    return total


def test_only_lines_under_the_roots_are_recorded_each_once() -> None:
    reach = LineReach([str(HERE.parent)])
    _traced(reach, lambda: (_mine(3), _mine(3), sorted([3, 1, 2]), Path("x").suffix))
    lines = reach.take()
    assert lines and all(line.startswith(f"{HERE.name}:") for line in lines), lines
    assert len(lines) == len(set(lines))  # the second call adds nothing
    start = _mine.__code__.co_firstlineno
    assert f"{HERE.name}:{start + 2}" in lines  # the loop's body
    assert reach.take() == []  # taken: nothing new since


def test_no_roots_traces_nothing() -> None:
    reach = LineReach([])
    _traced(reach, lambda: _mine(2))
    assert reach.take() == [] and sys.gettrace() is None


def test_the_bundled_candidates_code_is_their_folder_not_the_harness() -> None:
    roots = python_code_roots("mutant:blind-retry")
    assert [Path(r).name for r in roots] == ["candidates"] and roots == python_code_roots("reference")


def test_shapes_of_requests_faults_and_reported_states() -> None:
    history = History()
    op = history.invoke(0.0, "worker-1", {"service": "wordpress", "method": "POST", "route": "/wp/v2/posts/12"})
    history.complete(0.1, op, "fail", {"status": 503})
    history.append(0.1, "fault", "nemesis", {"kind": "http_error", "point": "before", "evidence": {"status": 503}})
    history.append(0.2, "report", "worker-1", {"checkpoint": {"phase": "draft_created"}, "outcome": "running",
                                               "operations": [{"kind": "wp_create_draft", "state": "UNKNOWN"}]})
    webhook = history.invoke(0.3, "openai-webhooks", {"service": "candidate", "method": "POST", "route": "/webhooks/openai"})
    history.complete(0.3, webhook, "ok", {"status": 200})
    assert history_shapes(history) == {
        "req:wordpress POST /wp/v2/posts/{id} -> fail 503", "fault:http_error:before:503",
        "state:draft_created/running", "op:wp_create_draft:UNKNOWN"}
    assert route_pattern("/agents/sessions/sess_0001/events") == "/agents/sessions/{id}/events"


def test_the_guide_keeps_only_plans_that_reach_something_new_and_favours_cheap_ones() -> None:
    guide = Guide()
    a, b, c = (Plan("article", ({"kind": k},), {}) for k in ("crash", "http_error", "lose_response"))
    assert guide.saw(a, {"reach": ["line:x.py:1", "req:a"], "timings": {"steps": 900}})
    assert not guide.saw(b, {"reach": ["line:x.py:1"]}) and not guide.saw(b, None)
    assert guide.saw(c, {"reach": ["line:x.py:2"], "timings": {"steps": 20}})
    assert guide.plans == [a, c] and guide.lines() == 2 and len(guide.seen) == 3
    assert guide.picks.count(c) == Guide.FAVOUR and guide.picks.count(a) == 1  # 900 steps: tried less often


def test_a_repeated_crash_that_uses_up_the_restarts_is_the_plans_doing() -> None:
    again = Plan("article", ({"kind": "crash", "at": {"service": "wordpress", "times": "all"}},), {})
    once = Plan("article", ({"kind": "crash", "at": {"service": "wordpress"}},), {})
    message = "worker-1: restarted 25 times and still crashing; last death: worker-1: crashed before delivery"
    assert _crashed_out(again, message) and not _crashed_out(once, message)
    assert not _crashed_out(again, "the candidate raised KeyError in step()")


def test_the_guided_strategy_stays_consistent_while_its_corpus_grows() -> None:
    channels = [Channel("wordpress", "POST", "/wp/v2/posts", 2), Channel("openai", "GET", "/agents/sessions/{id}", 5)]
    reached: list[Plan] = []
    strategy = plans(channels, ["agent_working"], "article", max_entries=2, reached=reached)
    drawn: list[Plan] = []

    def grow(plan: Plan) -> bool:  # every third plan joins the corpus, as plans reaching new code would
        drawn.append(plan)
        if len(drawn) % 3 == 0:
            reached.append(plan)
        return False

    try:
        find(strategy, grow, settings=settings(max_examples=60, database=None, deadline=None,
                                               suppress_health_check=list(HealthCheck)))
    except Exception as err:  # NoSuchExample: nothing satisfies ``grow``; anything else is the bug
        assert type(err).__name__ == "NoSuchExample", err
    assert len(drawn) >= 30 and reached
    corpus = {p.key() for p in reached}
    assert any(p.key() not in corpus and p.origin is None for p in drawn)
