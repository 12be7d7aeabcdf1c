"""The systematic pass from scratch: every single fault on every channel it can act on and every
action at every condition, once, the kinds taking turns, writes before reads, reproducible from the
seed, built from the clean run's channels alone (never from the catalogue)."""

from __future__ import annotations

from durable_harness.harness.explore._scratch import scratch_plans
from durable_harness.harness.explore._strategies import Channel

CHANNELS = [Channel("wordpress", "POST", "/wp/v2/posts", 1), Channel("wordpress", "GET", "/wp/v2/posts", 3),
            Channel("openai", "GET", "/agents/sessions/{id}/events", 4, streamed=True),
            Channel("webhooks", "POST", "/agent.session.idle", 2)]
CONDITIONS = ["agent_working", "tool_call_pending:wp_create_draft"]


def _kinds(plans: list) -> list[str]:
    return [p.entries[-1]["kind"] for p in plans]


def test_every_single_fault_and_action_once_reproducibly() -> None:
    plans = scratch_plans(CHANNELS, CONDITIONS, "article", seed=4)
    assert plans == scratch_plans(CHANNELS, CONDITIONS, "article", seed=4)
    assert [p.key() for p in plans] != [p.key() for p in scratch_plans(CHANNELS, CONDITIONS, "article", seed=5)]
    keys = [p.key() for p in plans]
    assert len(keys) == len(set(keys)) and all(p.world == {} and p.origin is None for p in plans)
    lost = [p.entries[0]["at"] for p in plans if p.entries[0]["kind"] == "lose_response"]
    assert {(a["method"], a["route"], a["nth"]) for a in lost} == {(c.method, c.route, 1) for c in CHANNELS
                                                                  if c.service != "webhooks"}
    crashes = {(p.entries[0]["at"]["route"], p.entries[0]["point"]) for p in plans if p.entries[0]["kind"] == "crash"}
    assert ("/wp/v2/posts", "before") in crashes and ("/wp/v2/posts", "after") in crashes
    assert {p.entries[0]["at"]["route"] for p in plans if p.entries[0]["kind"] == "drop_stream"} == {
        "/agents/sessions/{id}/events"}  # a stream fault on streams only
    assert {p.entries[0]["at"]["service"] for p in plans if p.entries[0]["kind"] == "duplicate_webhook"} == {"webhooks"}
    cancels = [p.entries[-1]["when"] for p in plans if p.entries[-1]["kind"] == "cancel"]
    assert sorted(cancels) == sorted(CONDITIONS)
    revoke = next(p for p in plans if p.entries[-1]["kind"] == "revoke_approval")
    assert _kinds([revoke])[0] == "revoke_approval" and revoke.entries[0]["kind"] == "approve"  # what it needs, first


def test_the_kinds_take_turns_and_writes_come_before_reads() -> None:
    plans = scratch_plans(CHANNELS, CONDITIONS, "article", seed=4)
    kinds = set(_kinds(plans))
    first_turn = _kinds(plans)[:len(kinds)]
    assert set(first_turn) == kinds and len(first_turn) == len(set(first_turn))
    lost = [p.entries[0]["at"]["method"] for p in plans if p.entries[0]["kind"] == "lose_response"]
    assert lost.index("POST") < lost.index("GET")
    stale = [p.entries[0]["at"]["method"] for p in plans if p.entries[0]["kind"] == "stale_read"]
    assert stale[0] == "GET"


def test_only_the_kinds_asked_for_and_no_actions_when_told() -> None:
    plans = scratch_plans(CHANNELS, CONDITIONS, "article", seed=0, kinds=["crash", "cancel"], actions=False)
    assert set(_kinds(plans)) == {"crash"}
