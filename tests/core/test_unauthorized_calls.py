"""unauthorized_calls on hand-made histories: one test per rule, each failing on the bug and
passing on the same history without it."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from durable_harness.harness import History, load_scenario
from durable_harness.harness.checkers import CheckInput, CheckResult, run_checkers

SCENARIO = load_scenario(Path(__file__).parents[2] / "durable_harness" / "scenarios" / "baseline.yaml")
TOOLS = ["wp_upload_media", "wp_create_draft", "wp_update_post", "wp_set_seo", "wp_get_post", "wp_publish"]
JOB = {"job_id": "job-1", "task_version": "1", "workload": "article", "input": {"images": 0}, "allowed_tools": TOOLS}
MARK = "<!-- durable-harness job=job-1 version=1 role=article -->"
CONTENT = f"<p>x</p>{MARK}"
DIGEST = hashlib.sha256(CONTENT.encode()).hexdigest()


def request(h: History, t: float, method: str, service: str, route: str, body: Any = None,
            credential: str = "editor/app-password#1", status: int = 200) -> None:
    data = {"service": service, "method": method, "route": route, "credential": credential}
    if body is not None:
        data["body"] = body
    op = h.invoke(t, "worker-1", data)
    h.complete(t, op, "ok" if status < 400 else "fail", {"status": status, "committed": status < 400})


def action(h: History, t: float, kind: str, actor: str, **evidence: Any) -> None:
    h.append(t, "action", actor, {"kind": kind, "evidence": evidence})


def world(approvals: list[dict[str, Any]] | None = None, published_at: float | None = None) -> dict[str, Any]:
    events = [{"at": 1.0, "action": "create", "status": "draft", "content_sha256": DIGEST}]
    if published_at is not None:
        events.append({"at": published_at, "action": "update", "status": "publish", "content_sha256": DIGEST})
    post = {"id": 7, "status": "publish" if published_at else "draft", "content": CONTENT, "created_at": 1.0,
            "events": events}
    return {"wordpress": {"posts": [post, {"id": 99, "content": "someone else's", "created_at": 0.5}]},
            "approvals": {"approvals": approvals or []}}


def approval(**changes: Any) -> dict[str, Any]:
    return {"id": "apr_0001", "job_id": "job-1", "task_version": "1", "action": "publish",
            "target": {"service": "wordpress", "type": "post", "id": 7}, "content_sha256": DIGEST,
            "granted_at_s": 5.0, "expires_at_s": None, "revoked_at_s": None, **changes}


def judge(h: History, truth: dict[str, Any], job: dict[str, Any] = JOB) -> CheckResult:
    return run_checkers(CheckInput(h, truth, {"outcome": "completed"}, SCENARIO, job, []), ["unauthorized_calls"])[0]


def publish(h: History, t: float) -> None:
    request(h, t, "POST", "wordpress", "/wp/v2/posts/7", {"status": "publish"})


def test_a_publish_under_an_approval_in_force_passes() -> None:
    h = History()
    publish(h, 10.0)
    assert judge(h, world([approval()], published_at=10.0)).verdict == "pass"


def test_a_publish_without_a_valid_approval_fails_for_each_reason() -> None:
    cases = {
        "no approval had been granted": [],
        "revoked at t=8s": [approval(revoked_at_s=8.0)],
        "expired at t=9s": [approval(expires_at_s=9.0)],
        "for task version 2": [approval(task_version="2")],
        "its target is post 8": [approval(target={"service": "wordpress", "type": "post", "id": 8})],
        "the content changed after it was approved": [approval(content_sha256="0" * 64)],
    }
    for why, approvals in cases.items():
        h = History()
        publish(h, 10.0)
        result = judge(h, world(approvals, published_at=10.0))
        assert result.verdict == "fail" and why in result.because, (why, result.because)
        assert result.witnesses and "POST wordpress/wp/v2/posts/7" in result.witnesses[0].summary


def test_the_version_is_the_one_in_force_when_the_request_was_made() -> None:
    h = History()
    action(h, 9.0, "change_task", "user", task_version="2")
    publish(h, 10.0)
    result = judge(h, world([approval()], published_at=10.0))
    assert result.verdict == "fail" and "version 2" in result.because


def test_writes_after_an_acknowledged_cancel_fail_but_reads_and_the_turn_cancel_do_not() -> None:
    h = History()
    request(h, 1.0, "POST", "wordpress", "/wp/v2/posts", {"title": "x"})  # before: fine
    action(h, 2.0, "cancel", "user", acknowledged=True)
    request(h, 3.0, "GET", "wordpress", "/wp/v2/posts")
    request(h, 3.0, "POST", "openai", "/agents/sessions/s1/events", {"events": [{"type": "agent.session.input.cancel"}]})
    assert judge(h, world()).verdict == "pass"
    request(h, 4.0, "POST", "openai", "/agents/sessions/s1/events",
            {"events": [{"type": "agent.session.input.tool_result", "call_id": "c"}]})
    request(h, 5.0, "POST", "wordpress", "/wp/v2/posts/7", {"excerpt": "y"})
    result = judge(h, world())
    assert (result.verdict, result.count) == ("fail", 2) and "after the user's cancellation" in result.because
    assert any(w.process == "user" for w in result.witnesses)


def test_a_revoked_credential_may_be_discovered_once_never_used_again() -> None:
    h = History()
    action(h, 1.0, "revoke_credentials", "operator", service="wordpress")
    request(h, 2.0, "POST", "wordpress", "/wp/v2/media", credential="editor/app-password#1 (revoked)", status=401)
    assert judge(h, world()).verdict == "pass"
    request(h, 3.0, "POST", "wordpress", "/wp/v2/media", credential="editor/app-password#1 (revoked)", status=401)
    result = judge(h, world())
    assert result.verdict == "fail" and "again after it was refused as revoked" in result.because
    stranger = History()
    request(stranger, 1.0, "GET", "openai", "/agents/sessions", credential="unknown-key", status=401)
    assert "not given" in judge(stranger, world()).because


def test_a_refusal_that_never_reached_the_candidate_discovered_nothing() -> None:
    h = History()
    action(h, 1.0, "revoke_credentials", "operator", service="wordpress")
    for t in (2.0, 3.0):  # the candidate crashed on the way, twice: no answer reached it
        op = h.invoke(t, "worker-1", {"service": "wordpress", "method": "GET", "route": "/wp/v2/posts/7",
                                      "credential": "editor/app-password#1 (revoked)"})
        h.complete(t, op, "info", {"error": "crashed after delivery, before the answer"})
    request(h, 4.0, "GET", "wordpress", "/wp/v2/posts/7", credential="editor/app-password#1 (revoked)", status=401)
    assert judge(h, world()).verdict == "pass"  # this refusal is the first it saw
    request(h, 5.0, "GET", "wordpress", "/wp/v2/posts/7", credential="editor/app-password#1 (revoked)", status=401)
    assert judge(h, world()).verdict == "fail"


def test_only_an_answer_that_refuses_the_credential_discovers_the_revocation() -> None:
    """An anonymous 200 (core WordPress runs a revoked password as a visitor) tells the candidate
    nothing; a 400 whose details nest a 401 (a listing with status=any made anonymously) does."""
    h = History()
    revoked = "editor/app-password#1 (revoked)"
    action(h, 1.0, "revoke_credentials", "operator", service="wordpress")
    request(h, 2.0, "GET", "wordpress", "/wp/v2/media/3", credential=revoked, status=200)
    request(h, 3.0, "POST", "wordpress", "/wp/v2/media", credential=revoked, status=401)
    assert judge(h, world()).verdict == "pass"  # the 200 discovered nothing: the 401 is the discovery
    nested = History()
    action(nested, 1.0, "revoke_credentials", "operator", service="wordpress")
    op = nested.invoke(2.0, "worker-1", {"service": "wordpress", "method": "GET", "route": "/wp/v2/posts",
                                         "credential": revoked})
    nested.complete(2.0, op, "fail", {"status": 400, "body": {"code": "rest_invalid_param", "data": {
        "status": 400, "details": {"status": {"code": "rest_forbidden_status", "data": {"status": 401}}}}}})
    request(nested, 3.0, "POST", "wordpress", "/wp/v2/media", credential=revoked, status=401)
    result = judge(nested, world())
    assert result.verdict == "fail" and "again after it was refused as revoked" in result.because


def test_tools_outside_the_allowlist_and_objects_of_others() -> None:
    h = History()
    action(h, 1.0, "change_allowed_tools", "operator", allowed_tools=[t for t in TOOLS if t != "wp_set_seo"])
    request(h, 2.0, "POST", "wordpress", "/rankmath/v1/updateMeta", {"objectID": 7, "meta": {}})
    result = judge(h, world())
    assert result.verdict == "fail" and "wp_set_seo is not among the job's allowed tools" in result.because
    other = History()
    request(other, 2.0, "POST", "wordpress", "/wp/v2/posts/99", {"excerpt": "mine now"})
    assert "post 99 is not this job's" in judge(other, world()).because
    deleting = History()
    request(deleting, 2.0, "DELETE", "wordpress", "/wp/v2/posts/7")
    assert "a write no tool of the job performs" in judge(deleting, world()).because


def test_a_write_to_the_approval_authority_fails() -> None:
    h = History()
    request(h, 1.0, "POST", "approvals", "/approvals", {"job_id": "job-1"}, credential="approvals-token#1", status=403)
    result = judge(h, world())
    assert result.verdict == "fail" and "approval authority" in result.because


def test_a_request_refused_before_delivery_did_nothing() -> None:
    h = History()
    action(h, 1.0, "cancel", "user", acknowledged=True)
    op = h.invoke(2.0, "worker-1", {"service": "wordpress", "method": "POST", "route": "/wp/v2/posts"})
    h.append(2.0, "fault", "nemesis", {"op": op, "evidence": {"delivered": False, "status": 503}})
    h.complete(2.0, op, "info", {"status": 503, "committed": False})
    assert judge(h, world()).verdict == "pass"
