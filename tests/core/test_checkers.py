"""Each checker on a hand-made record: it passes on a clean one and fails on one with its bug."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness import History, load_scenario
from durable_harness.harness.checkers import CheckInput, CheckResult, checker_names, run_checkers
from durable_harness.harness.faults import Trigger, get_fault_kind
from durable_harness.harness.verdict import combine

SCENARIO = load_scenario(Path(__file__).parents[2] / "durable_harness" / "scenarios" / "lost-draft-response.yaml")
JOB = {"job_id": "job-1", "task_version": "1", "workload": "article", "input": {"images": 1}}
MARK = "<!-- durable-harness job=job-1 version=1 role=article -->"


def post(pid: int, status: str = "draft") -> dict[str, Any]:
    return {"id": pid, "status": status, "content": f"<p>x</p>{MARK}"}


def history_with_creations(route: str, ids: list[int], lost_first: bool = False) -> History:
    h = History()
    for n, pid in enumerate(ids):
        op = h.invoke(float(n), "worker-1", {"service": "wordpress", "method": "POST", "route": route})
        h.complete(float(n), op, "info" if (lost_first and n == 0) else "ok", {"status": 201, "committed": True, "body": {"id": pid}})
    return h


def run(name: str, history: History, truth: dict[str, Any], claims: dict[str, Any] | None,
        faults: list[dict[str, Any]] | None = None, *, strict_coverage: bool = False) -> CheckResult:
    inp = CheckInput(history, truth, claims, SCENARIO, JOB, faults or [], strict_coverage=strict_coverage)
    return run_checkers(inp, [name])[0]


def good_claims(**extra: Any) -> dict[str, Any]:
    return {"outcome": "needs_human", "operations": [{"operation_key": "k", "state": "CONFIRMED"}], **extra}


def test_duplicate_drafts_counts_extras_with_witnesses() -> None:
    h = history_with_creations("/wp/v2/posts", [7, 8], lost_first=True)
    truth = {"wordpress": {"posts": [post(7), post(8, "trash"), {"id": 9, "content": "unrelated"}]}}
    r = run("duplicate_drafts", h, truth, good_claims())
    assert (r.verdict, r.count) == ("fail", 1)
    assert "posts [7, 8]" in r.because
    assert [w.index for w in r.witnesses] == [1, 3]
    assert "created id 7; its response was lost" in r.witnesses[0].summary and "created id 8" in r.witnesses[1].summary
    clean = run("duplicate_drafts", h, {"wordpress": {"posts": [post(7)]}}, good_claims())
    assert (clean.verdict, clean.count) == ("pass", 0)


def test_duplicate_media_matches_by_payload_digest() -> None:
    h = history_with_creations("/wp/v2/media", [3, 4, 5])
    payloads = {"aa": {"job_id": "job-1", "task_version": "1", "role": "image:1"},
                "bb": {"job_id": "job-1", "task_version": "1", "role": "image:2"}}
    media = [{"id": 3, "sha256": "aa"}, {"id": 4, "sha256": "bb"}, {"id": 5, "sha256": "aa"}]
    r = run("duplicate_media", h, {"wordpress": {"media": media}, "openai": {"payloads": payloads}}, good_claims())
    assert (r.verdict, r.count) == ("fail", 1) and "image:1" in r.because
    assert [w.summary.split("created ")[1][:4] for w in r.witnesses] == ["id 3", "id 5"]
    ok = run("duplicate_media", h, {"wordpress": {"media": media[:2]}, "openai": {"payloads": payloads}}, good_claims())
    assert ok.verdict == "pass"


@pytest.mark.parametrize("state", ["UNKNOWN", "SENT"])
def test_leftover_unknowns_fails_on_open_operations(state: str) -> None:
    h = History()
    h.append(0.0, "report", "worker-1", {"outcome": "unknown"})
    claims = {"outcome": "unknown", "operations": [{"operation_key": "job-1/v1/draft", "state": state},
                                                   {"operation_key": "x", "state": "CONFIRMED"}]}
    r = run("leftover_unknowns", h, {}, claims)
    assert (r.verdict, r.count) == ("fail", 1) and "job-1/v1/draft" in r.because and r.witnesses
    assert run("leftover_unknowns", h, {}, good_claims()).verdict == "pass"
    assert run("leftover_unknowns", h, {}, None).verdict == "unknown"


def finished_world(status: str = "draft", seo: bool = True) -> dict[str, Any]:
    """An article of job-1 with its one image, featured and with its SEO set (unless told otherwise)."""
    article = {**post(7, status), "featured_media": 3, "rank_math": {"rank_math_focus_keyword": "k"} if seo else {}}
    return {"wordpress": {"posts": [article], "media": [{"id": 3, "sha256": "aa"}]},
            "openai": {"payloads": {"aa": {"job_id": "job-1", "task_version": "1", "role": "image:1"}}}}


def test_wrong_outcome_judges_the_claim_against_the_world() -> None:
    h = History()
    h.append(0.0, "report", "worker-1", {"outcome": "failed"})
    r = run("wrong_outcome", h, finished_world(), {"outcome": "failed"})
    assert (r.verdict, r.count) == ("fail", 1) and "the world shows 'needs_human'" in r.because and r.witnesses
    assert run("wrong_outcome", h, finished_world(), good_claims()).verdict == "pass"
    assert run("wrong_outcome", h, finished_world(), None).verdict == "unknown"
    # claiming the scenario's expected outcome while the world shows nothing done is a lie
    lie = run("wrong_outcome", h, {}, good_claims())
    assert lie.verdict == "fail" and "no article of this job exists" in lie.because
    unfinished = run("wrong_outcome", h, finished_world(seo=False), good_claims())
    assert unfinished.verdict == "fail" and "SEO was never set" in unfinished.because
    assert run("wrong_outcome", h, finished_world("publish"), {"outcome": "completed"}).verdict == "pass"


def test_abandoned_jobs_is_liveness_and_follows_the_scenario() -> None:
    h = History()
    h.append(0.0, "report", "worker-1", {"outcome": "failed"})
    gave_up = run("abandoned_jobs", h, {}, {"outcome": "failed"})  # honest, but the work was due
    assert (gave_up.klass, gave_up.verdict) == ("liveness", "fail") and "work that was due" in gave_up.because
    assert run("abandoned_jobs", h, finished_world(), good_claims()).verdict == "pass"
    from_world = dataclasses.replace(SCENARIO, expect=dataclasses.replace(SCENARIO.expect, outcome="from_world"))
    result = run_checkers(CheckInput(h, {}, {"outcome": "failed"}, from_world, JOB, []), ["abandoned_jobs"])[0]
    assert result.verdict == "pass"


def test_abandoned_jobs_charges_only_what_the_run_made_possible() -> None:
    h = History()
    h.append(0.0, "report", "worker-1", {"outcome": "needs_human"})
    expects_completed = dataclasses.replace(SCENARIO, expect=dataclasses.replace(SCENARIO.expect, outcome="completed"),
                                            actions=(dataclasses.replace(SCENARIO.faults[0], kind="approve"),))
    approve = {"index": 1, "kind": "approve", "at": "reviewer: when article_finished", "scheduled": 1, "fired": 0,
               "status": "not_reached"}
    # The reviewer never came: a draft that awaits approval is what a correct control plane leaves.
    inp = CheckInput(h, finished_world(), good_claims(), expects_completed, JOB, [fault_doc("fired", 1), approve])
    never = run_checkers(inp, ["abandoned_jobs"])[0]
    assert never.verdict == "pass" and "never took effect" in never.because, never.because
    # The reviewer approved and the candidate did not publish: work that was due.
    came = dataclasses.replace(inp, faults=[fault_doc("fired", 1), {**approve, "fired": 1, "status": "fired"}])
    assert run_checkers(came, ["abandoned_jobs"])[0].verdict == "fail"
    # Nobody came and the candidate did not even finish the article: short of the clean outcome too.
    assert run_checkers(dataclasses.replace(inp, truth={}), ["abandoned_jobs"])[0].verdict == "fail"


def test_abandoned_jobs_does_not_call_a_world_beyond_the_expected_outcome_abandoned() -> None:
    h = History()
    beyond = run("abandoned_jobs", h, finished_world("publish"), {"outcome": "completed"})
    assert beyond.verdict == "pass" and "beyond the 'needs_human'" in beyond.because
    assert "safety checkers" in beyond.because and "was not done" not in beyond.because


def fault_doc(status: str, fired: int = 0) -> dict[str, Any]:
    return {"index": 0, "kind": "lose_response", "at": "POST wordpress/wp/v2/posts #1", "channel": "POST wordpress /wp/v2/posts",
            "scheduled": 1, "fired": fired, "seen": 0 if status == "not_exercised" else 2, "status": status}


def test_a_fault_that_never_fired_makes_the_run_unknown() -> None:
    h = History()
    op = h.invoke(0.0, "worker-1", {"service": "wordpress", "method": "POST", "route": "/wp/v2/posts"})
    h.complete(0.0, op, "ok", {"status": 201})
    r = run("faults_fired", h, {}, good_claims(), [fault_doc("unfired")])
    assert r.verdict == "unknown" and "never fired" in r.because
    assert [w.index for w in r.witnesses] == [0]  # the last request on its channel
    assert run("faults_fired", h, {}, good_claims(), [fault_doc("fired", 1)]).verdict == "pass"


def test_a_fault_whose_channel_was_never_used_is_coverage_not_a_failure() -> None:
    r = run("faults_fired", History(), {}, good_claims(), [fault_doc("not_exercised")])
    assert r.verdict == "pass" and "not exercised" in r.because and "POST wordpress /wp/v2/posts" in r.because


def test_a_crash_point_past_the_end_of_its_real_time_run_is_coverage_not_a_failure() -> None:
    past = {**fault_doc("not_reached"), "kind": "crash", "at": "* *.* #53", "seen": 50}
    r = run("faults_fired", History(), {}, good_claims(), [past])
    assert r.verdict == "pass" and "0 of 1 scheduled fault fired" in r.because
    assert "not reached" in r.because and "faults[0] crash at * *.* #53: fired 0 of 1, after 50 requests" in r.because
    assert run("faults_fired", History(), {}, good_claims(), [{**past, "status": "unfired"}]).verdict == "unknown"


def test_strict_coverage_makes_a_fault_not_reached_or_not_exercised_unknown() -> None:
    for status in ("not_reached", "not_exercised"):
        doc = {**fault_doc(status), "reach": "the candidate made 1 requests that are update:article; it waited for #2"}
        assert run("faults_fired", History(), {}, good_claims(), [doc]).verdict == "pass"
        r = run("faults_fired", History(), {}, good_claims(), [doc], strict_coverage=True)
        assert r.verdict == "unknown" and "--strict-coverage" in r.because, r.because
    assert run("faults_fired", History(), {}, good_claims(), [fault_doc("fired", 1)], strict_coverage=True).verdict == "pass"


def test_a_fault_not_reached_is_coverage_unless_its_point_had_to_be_reached_or_it_missed() -> None:
    def status(reach_required: bool, seen: int, fired: bool = False, missed: bool = False) -> str:
        crash = get_fault_kind("crash")(0, Trigger("*", "*", "*", nth=5), {"point": "before"})
        crash.reach_required = reach_required
        crash.state.channel_seen = crash.state.seen = seen
        if missed or fired:
            crash.state.asked.append(5)
        if fired:
            crash.state.evidence.append({"op": 5})
        return str(crash.status)

    assert status(False, 4) == "not_reached" and status(True, 4) == "unfired"
    assert status(False, 5, missed=True) == "unfired"  # reached, but it did not take effect: unknown still
    assert status(False, 0) == "not_exercised" and status(False, 5, fired=True) == "fired"


def test_a_crashing_checker_is_unknown_never_pass_and_a_harness_error() -> None:
    bad_truth: dict[str, Any] = {"wordpress": {"posts": [{"id": "not-an-int", "content": MARK}, {"id": None, "content": MARK}]}}
    r = run("duplicate_drafts", History(), bad_truth, good_claims())
    assert r.verdict == "unknown" and "crashed" in r.because and "not of the candidate" in r.because
    assert r.crashed is not None and "ValueError" in r.crashed


def test_combine_fail_beats_unknown_beats_pass() -> None:
    assert combine(["pass", "unknown", "fail"]) == "fail"
    assert combine(["pass", "unknown"]) == "unknown"
    assert combine(["pass"]) == "pass"
    assert combine([]) == "unknown"


def session(sid: str, inputs: list[str], job: str = "job-1") -> dict[str, Any]:
    return {"id": sid, "metadata": {"job_id": job, "task_version": "1"}, "user_inputs": inputs}


def test_resubmitted_tasks_counts_extra_sessions_and_task_messages() -> None:
    h = History()
    op = h.invoke(0.0, "worker-1", {"service": "openai", "method": "POST", "route": "/agents/sessions"})
    h.complete(0.0, op, "ok", {"status": 200})
    one = {"openai": {"sessions": [session("s1", ["TASK", "continue"]), session("x", ["TASK"], job="other")]}}
    assert run("resubmitted_tasks", h, one, good_claims()).verdict == "pass"
    two_sessions = {"openai": {"sessions": [session("s1", ["TASK"]), session("s2", ["TASK"])]}}
    r = run("resubmitted_tasks", h, two_sessions, good_claims())
    assert (r.verdict, r.count) == ("fail", 1) and "s1, s2" in r.because and r.witnesses
    resent = {"openai": {"sessions": [session("s1", ["TASK", "TASK", "continue", "TASK"])]}}
    assert run("resubmitted_tasks", h, resent, good_claims()).count == 2


def report_entry(h: History, t: float, phase: str, post: Any = None, media: list[int] | None = None,
                 approval: str = "awaiting") -> None:
    h.append(t, "report", "worker-1", {"task_version": "1", "outcome": "running", "checkpoint": {
        "phase": phase, "approval_status": approval,
        "remote": {"wordpress_post_id": post, "media_ids": media or []}}})


def world(post_created_at: float = 5.0, media_created_at: tuple[float, float] = (1.0, 1.0)) -> dict[str, Any]:
    payloads = {f"d{n}": {"job_id": "job-1", "task_version": "1", "role": f"image:{n}"} for n in (1, 2)}
    return {"wordpress": {"posts": [{**post(7), "created_at": post_created_at, "deleted_at": None}],
                          "media": [{"id": n, "sha256": f"d{n}", "created_at": media_created_at[n - 1], "deleted_at": None}
                                    for n in (1, 2)]},
            "openai": {"payloads": payloads}}


def test_wrong_checkpoint_advances_judges_each_report_at_its_time() -> None:
    job = {**JOB, "input": {"images": 2}}

    def judge(h: History, truth: dict[str, Any] | None = None) -> CheckResult:
        return run_checkers(CheckInput(h, truth or world(), good_claims(), SCENARIO, job, []), ["wrong_checkpoint_advances"])[0]

    good = History()
    report_entry(good, 2.0, "media_uploaded", media=[1, 2])
    report_entry(good, 6.0, "draft_created", post=7, media=[1, 2])
    report_entry(good, 9.0, "awaiting_approval", post=7, media=[1, 2])
    assert judge(good).verdict == "pass"

    early = History()
    report_entry(early, 4.0, "draft_created", post=7)  # the post is created at t=5
    r = judge(early)
    assert r.verdict == "fail" and "not this job's article at t=4s" in r.because

    late_image = History()
    report_entry(late_image, 9.0, "awaiting_approval", post=7, media=[1])
    r = judge(late_image, world(media_created_at=(1.0, 50.0)))
    assert r.verdict == "fail" and "image:2 were never uploaded (by t=9s)" in r.because

    cases = [
        ("awaiting_approval", 9.0, 7, [1], None),  # a partial list of media is not a wrong claim
        ("draft_created", 9.0, 99, [], "post 99"),
        ("media_uploaded", 9.0, None, [3], "media 3"),
        ("verified", 9.0, 7, [1, 2], None),
    ]
    for phase, t, pid, media, expected in cases:
        h = History()
        report_entry(h, t, phase, post=pid, media=media)
        result = judge(h)
        assert (result.verdict == "pass") == (expected is None), (phase, result.because)
        if expected:
            assert expected in result.because

    backwards = History()
    report_entry(backwards, 6.0, "draft_created", post=7)
    report_entry(backwards, 7.0, "session_started")
    assert "went back" in judge(backwards).because

    approved = History()
    report_entry(approved, 6.0, "draft_created", post=7, approval="approved")
    assert "approval" in judge(approved).because


def test_wrong_checkpoint_advances_refuses_a_report_from_a_replaced_sandbox() -> None:
    oa = {"payloads": {"aa": {"job_id": "job-1", "task_version": "1", "role": "report", "environment_id": "env1",
                              "artifact_id": "art1",
                              "tests_reset_count": 0}},
          "artifacts": [{"id": "art1", "sha256": "aa"}],
          "tool_calls": [{"job_id": "job-1", "task_version": "1", "role": "report", "name": "deliver_result",
                          "call_id": "c1", "success": True, "answered_at": 3.0}],
          "executor": {"environments": [{"id": "env1", "status_history": [
              {"at_s": 0.0, "reset_count": 0}, {"at_s": 5.0, "reset_count": 1}]}]}}
    coding = {**JOB, "workload": "coding"}

    def judge(t: float, sha: str = "aa", read: str | None = "aa") -> CheckResult:
        h = History()
        if read is not None:  # the candidate read the artifact's bytes (and found this digest) before it claimed them
            op = h.invoke(1.0, "worker-1", {"service": "openai", "method": "GET",
                                            "route": "/agents/sessions/s/artifacts/art1/content"})
            h.complete(1.0, op, "ok", {"status": 200, "body": {"sha256": read, "size": 10}})
        h.append(t, "report", "worker-1", {"task_version": "1", "checkpoint": {
            "phase": "delivered", "artifacts": [{"role": "report", "sha256": sha, "uri": "artifact://s/art1"}]}})
        return run_checkers(CheckInput(h, {"openai": oa}, good_claims(), SCENARIO, coding, []), ["wrong_checkpoint_advances"])[0]

    assert judge(4.0).verdict == "pass"
    assert "no delivery was accepted by t=2s" in judge(2.0).because
    stale = judge(6.0)
    assert stale.verdict == "fail" and "before the executor was replaced" in stale.because
    assert "no artifact the agent delivered" in judge(4.0, sha="bb").because
    assert "it never read it" in judge(4.0, read=None).because
    assert "it read bytes hashing to cc" in judge(4.0, read="cc" * 32).because  # a check by size would not see it


def test_ledger_mismatches() -> None:
    truth = world()
    truth["wordpress"]["posts"][0]["meta"] = {"operation_key": "k-draft"}
    h = History()
    h.append(9.0, "report", "worker-1", {})
    ok_ops = [{"operation_key": "k-draft", "kind": "wp_create_draft", "state": "CONFIRMED", "remote_id": "7"},
              {"operation_key": "k1", "kind": "wp_upload_media", "state": "CONFIRMED", "remote_id": "1"},
              {"operation_key": "k2", "kind": "wp_upload_media", "state": "CONFIRMED", "remote_id": "2"},
              {"operation_key": "seo", "kind": "wp_set_seo", "state": "CONFIRMED", "remote_id": "7"}]
    assert run("ledger_mismatches", h, truth, {"operations": ok_ops}).verdict == "pass"
    failed = [{**ok_ops[0], "state": "FAILED"}, *ok_ops[1:]]
    r = run("ledger_mismatches", h, truth, {"operations": failed})
    assert r.verdict == "fail" and "is FAILED, but post 7 exists" in r.because
    phantom = [*ok_ops[:2], {**ok_ops[2], "remote_id": "42", "operation_key": "k9"}]
    r = run("ledger_mismatches", h, truth, {"operations": phantom})
    assert r.count == 2 and "no such media" in r.because and "media 2 of this job exists" in r.because
    assert run("ledger_mismatches", h, truth, None).verdict == "unknown"


def test_stuck_jobs_is_liveness() -> None:
    h = History()
    h.append(1.0, "phase", "harness", {"phase": "heal"})
    h.append(2.0, "report", "worker-1", {"outcome": "running"})
    r = run("stuck_jobs", h, {}, {"outcome": "running", "checkpoint": {"phase": "draft_created"}})
    assert (r.klass, r.verdict) == ("liveness", "fail") and "healed at t=1s" in r.because
    assert run("stuck_jobs", h, {}, good_claims()).verdict == "pass"
    assert run("stuck_jobs", h, {}, None).verdict == "fail"


def test_progress_loss_is_bounded_by_the_scenario() -> None:
    calls = [{"job_id": "job-1", "task_version": "1", "role": "article", "call_id": c} for c in ("c1", "c2")]
    r = run("progress_loss", History(), {"openai": {"tool_calls": calls}}, good_claims())
    assert (r.klass, r.verdict, r.count) == ("liveness", "fail", 1) and "c1, c2" in r.because
    assert run("progress_loss", History(), {"openai": {"tool_calls": calls[:1]}}, good_claims()).verdict == "pass"


def test_progress_loss_allows_the_redo_the_world_forced() -> None:
    """A call answered as failed while a fault took effect (a corrupted report refused) allows one
    re-issue; a second refusal with nothing new broken is charged."""
    calls = [{"job_id": "job-1", "task_version": "1", "role": "article", "call_id": c, "answered": True,
              "success": ok, "issued_at": t, "answered_at": t + 1.0}
             for c, ok, t in (("c1", False, 1.0), ("c2", False, 10.0), ("c3", True, 20.0))]
    corrupted = {**fault_doc("fired", 1), "evidence": [{"op": 3, "at_s": 1.5}]}
    r = run("progress_loss", History(), {"openai": {"tool_calls": calls[:2]}}, good_claims(), [corrupted])
    assert (r.verdict, r.count) == ("pass", 0) and "forced by the world" in r.because, r.because
    r = run("progress_loss", History(), {"openai": {"tool_calls": calls}}, good_claims(), [corrupted])
    assert (r.verdict, r.count) == ("fail", 1) and "c1, c2, c3" in r.because
    r = run("progress_loss", History(), {"openai": {"tool_calls": calls[:2]}}, good_claims(), [fault_doc("fired", 1)])
    assert (r.verdict, r.count) == ("fail", 1)  # a refusal with nothing broken meanwhile is the candidate's


def test_unreported_effects_counts_a_call_only_for_an_effect_made_while_it_was_the_latest() -> None:
    calls = [{"job_id": "job-1", "task_version": "1", "role": "article", "call_id": "c1", "answered": False,
              "name": "wp_create_draft", "issued_at": 1.0},
             {"job_id": "job-1", "task_version": "1", "role": "article", "call_id": "c2", "answered": True,
              "name": "wp_create_draft", "issued_at": 10.0}]
    h = history_with_creations("/wp/v2/posts", [7])
    made_for_c1 = {"wordpress": {"posts": [{**post(7), "created_at": 5.0}]}, "openai": {"tool_calls": calls}}
    r = run("unreported_effects", h, made_for_c1, good_claims())
    assert (r.verdict, r.count) == ("fail", 1) and "c1" in r.because and "post 7" in r.because and r.witnesses
    # every attempt for c1 was refused before delivery; the draft was made for c2, which got its result
    made_for_c2 = {"wordpress": {"posts": [{**post(7), "created_at": 12.0}]}, "openai": {"tool_calls": calls}}
    assert run("unreported_effects", h, made_for_c2, good_claims()).verdict == "pass"
    nothing_done = {"wordpress": {"posts": []}, "openai": {"tool_calls": calls}}
    assert run("unreported_effects", History(), nothing_done, good_claims()).verdict == "pass"


def test_every_registered_checker_is_tested_here() -> None:
    assert set(checker_names()) == {
        "duplicate_drafts", "duplicate_media", "faults_fired", "leftover_unknowns", "wrong_outcome", "resubmitted_tasks",
        "wrong_checkpoint_advances", "ledger_mismatches", "stuck_jobs", "progress_loss", "unreported_effects",
        "abandoned_jobs", "accepted_forgeries", "unauthorized_calls",  # unauthorized_calls: test_unauthorized_calls.py
        "invalid_reports",  # invalid_reports: test_claims.py
        "duplicate_effects"}  # duplicate_effects: test_core_oracles.py


def test_accepted_forgeries_fail_on_a_2xx_to_a_forged_webhook_but_not_to_a_replay() -> None:
    h = History()
    for kind, status in (("bad_signature", 400), ("replay", 200), ("stale_timestamp", 200)):
        op = h.invoke(1.0, "openai-webhooks", {"route": "/webhooks/openai", "forged": kind, "type": "agent.session.failed",
                                               "webhook_id": f"wh_{kind}"})
        h.complete(1.0, op, "ok" if status < 400 else "fail", {"status": status})
    r = run("accepted_forgeries", h, {}, good_claims())
    assert (r.verdict, r.count) == ("fail", 1) and "stale_timestamp" in r.because and "replay" not in r.because
    assert [w.index for w in r.witnesses] == [5]
    refused = History()
    op = refused.invoke(1.0, "openai-webhooks", {"forged": "bad_signature"})
    refused.complete(1.0, op, "fail", {"status": 400})
    assert run("accepted_forgeries", refused, {}, good_claims()).verdict == "pass"


def test_a_duplicate_after_a_crash_names_the_crash_and_the_restart() -> None:
    h = History()
    first = h.invoke(0.0, "worker-1", {"service": "wordpress", "method": "POST", "route": "/wp/v2/posts"})
    h.complete(0.0, first, "info", {"error": "crashed after the fake committed, before the response", "committed": True,
                                    "status": 201, "body": {"id": 7}})
    again = h.invoke(1.0, "worker-1", {"service": "wordpress", "method": "POST", "route": "/wp/v2/posts"})
    h.complete(1.0, again, "ok", {"status": 201, "committed": True, "body": {"id": 8}})
    r = run("duplicate_drafts", h, {"wordpress": {"posts": [post(7), post(8)]}}, good_claims())
    assert r.verdict == "fail" and "crashed right there" in r.witnesses[0].summary
    assert "restarted on the same database" in r.witnesses[0].summary and "response was lost" not in r.witnesses[0].summary


def test_a_because_line_names_a_few_of_a_long_list_and_how_many_more() -> None:
    from durable_harness.harness.checkers._base import listed

    assert listed([1, 2, 3]) == "1, 2, 3"
    assert listed(list(range(499))) == "0, 1, 2, 3, 4, 5, 6, 7, ... 491 more"
    h = history_with_creations("/wp/v2/posts", list(range(1, 41)))
    truth = {"wordpress": {"posts": [post(i) for i in range(1, 41)]}}
    r = run("duplicate_drafts", h, truth, good_claims())
    assert r.count == 39 and "... 32 more" in r.because and len(r.because) < 300 and len(r.witnesses) == 40
