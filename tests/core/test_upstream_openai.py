"""A sessions API by URL behind the gate, against an upstream played by an ``httpx.MockTransport``: what
is forwarded (the key mapped, a revoked one refused upstream), what ground truth it reads back
(sessions by metadata, their items and turns, each call's job, role and payload), which scenarios
apply, and the wall clock its runs keep. The whole path against ``serve-fake`` as a process:
``tests/e2e/test_sessions_api_by_url.py``."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from durable_harness.harness import load_scenario
from durable_harness.harness._realtime import TIME_SCALE_ENV, RealTimeClock, WorldLock, time_scale
from durable_harness.harness.cli import main
from durable_harness.harness.services._applicability import not_applicable
from durable_harness.harness.services._upstream import Upstream, upstream
from durable_harness.harness.services._upstream_openai import UpstreamOpenAI
from durable_harness.harness.workloads.article import call_truth
from durable_harness.wire import Request

REPO = Path(__file__).parents[2]
SCENARIOS = REPO / "durable_harness" / "scenarios"
API = "http://127.0.0.1:9/v1"
HARNESS_KEY = "sk-upstream-harness-key-0123456789"
MINTED = "sk-harness-minted"
JOB = ("job-baseline-3f9a1c", "1")
PNG = b"\x89PNG fake bytes"


class Api:
    """The few routes of the sessions API ground truth reads, and one write; every request is kept."""

    def __init__(self) -> None:
        self.got: list[httpx.Request] = []
        call = {"id": "item_2", "type": "function_call", "call_id": "call_1", "name": "wp_upload_media",
                "arguments": {"filename": "read-first-1.png", "content_base64": base64.b64encode(PNG).decode()},
                "status": "completed", "turn_id": "turn_1"}
        self.items = [
            {"id": "item_1", "type": "message", "role": "user", "content": [{"type": "input_text", "text": "the task"}],
             "turn_id": "turn_1"},
            call,
            {"id": "item_3", "type": "function_call_output", "call_id": "call_1", "status": "completed",
             "output": "{}", "turn_id": "turn_1"},
            {"id": "item_4", "type": "function_call", "call_id": "call_2", "name": "wp_create_draft",
             "arguments": {"content": "<!-- durable-harness job=job-baseline-3f9a1c version=1 role=article -->"},
             "status": "in_progress", "turn_id": "turn_1"}]
        self.session = {"id": "sess_1", "object": "agent.session", "status": "requires_action",
                        "metadata": {"job_id": JOB[0], "task_version": JOB[1]}, "created_at": 1}

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.got.append(request)
        path = request.url.path
        if request.headers.get("authorization") != f"Bearer {HARNESS_KEY}":
            return httpx.Response(401, json={"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})
        if path == "/v1/agents/sessions" and request.method == "GET":
            wanted = request.url.params.get("metadata[job_id]")
            data = [self.session] if wanted == JOB[0] else []
            return httpx.Response(200, json={"object": "list", "data": data, "has_more": False})
        if path == "/v1/agents/sessions/sess_1/items":
            after = request.url.params.get("after")
            start = 0 if after is None else [i["id"] for i in self.items].index(after) + 1
            page = self.items[start:start + 2]  # pages of two: ground truth reads them all
            return httpx.Response(200, json={"object": "list", "data": page, "has_more": start + 2 < len(self.items),
                                             "last_id": page[-1]["id"] if page else None})
        if path == "/v1/agents/sessions/sess_1/turns":
            return httpx.Response(200, json={"object": "list", "data": [{"id": "turn_1", "status": "requires_action"}],
                                             "has_more": False})
        if path == "/v1/agents/sessions/sess_1" and request.method == "DELETE":
            return httpx.Response(200, json={"id": "sess_1", "object": "agent.session.deleted", "deleted": True})
        if path == "/v1/agents/sessions/sess_1":
            return httpx.Response(200, json=self.session)
        if path == "/v1/agents/sessions/sess_1/events" and request.method == "POST":
            return httpx.Response(202)
        return httpx.Response(404, json={"error": {"message": "no such route"}})


def _service(api: Api, clock: Any = None, keep: bool = False) -> UpstreamOpenAI:
    from durable_harness.harness._clock import VirtualClock

    return UpstreamOpenAI(clock or VirtualClock(), Upstream("openai", API, "", HARNESS_KEY), api_key=MINTED, jobs=[JOB],
                          call_truth=call_truth, keep=keep, transport=httpx.MockTransport(api))


def _request(method: str, path: str, key: str = MINTED, body: Any = None) -> Request:
    return Request(method, f"/v1{path}", (), {"authorization": f"Bearer {key}", "openai-beta": "agents=v1"},
                   json.dumps(body).encode() if body is not None else b"")


def test_the_minted_key_goes_upstream_as_the_harnesss_and_a_revoked_one_is_refused_there() -> None:
    api = Api()
    service = _service(api)
    assert service.handle(_request("GET", "/agents/sessions/sess_1")).status == 200
    assert api.got[-1].headers["authorization"] == f"Bearer {HARNESS_KEY}"
    assert api.got[-1].url.path == "/v1/agents/sessions/sess_1"
    assert service.credential(_request("GET", "/x")) == "api-key#1"
    service.revoke_api_key()
    assert service.credential(_request("GET", "/x")) == "api-key#1 (revoked)"
    assert service.handle(_request("GET", "/agents/sessions/sess_1")).status == 401
    assert HARNESS_KEY not in api.got[-1].headers["authorization"]
    assert service.credential(_request("GET", "/x", key="sk-other")) == "unknown-key"


def test_an_upstream_that_does_not_answer_is_a_502_in_the_apis_error_shape() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    service = _service(Api())
    service._http = httpx.Client(transport=httpx.MockTransport(down))
    answer = service.handle(_request("GET", "/agents/sessions/sess_1"))
    assert answer.status == 502 and json.loads(answer.body)["error"]["code"] == "upstream_unreachable"


def test_ground_truth_is_read_from_the_upstream_with_each_calls_job_role_and_payload() -> None:
    api = Api()
    service = _service(api)
    service.handle(_request("GET", "/agents/sessions/sess_1"))  # the gate sees the session: its job
    service.handle(_request("POST", "/agents/sessions/sess_1/events", body={"events": [
        {"type": "agent.session.input.tool_result", "turn_id": "turn_1", "call_id": "call_1", "success": True,
         "output": "{}"}]}))
    service.settle()
    truth = service.truth()
    [session] = truth["sessions"]
    assert session["metadata"] == {"job_id": JOB[0], "task_version": "1"} and session["user_inputs"] == ["the task"]
    assert (session["turns"], session["last_turn_status"]) == (1, "requires_action")
    calls = {c["call_id"]: c for c in truth["tool_calls"]}
    assert calls["call_1"] | {"issued_at": 0, "answered_at": 0} == {
        "session_id": "sess_1", "turn_id": "turn_1", "call_id": "call_1", "name": "wp_upload_media", "role": "image:1",
        "job_id": JOB[0], "task_version": "1", "issued_at": 0, "answered": True, "success": True, "answered_at": 0}
    assert calls["call_2"]["role"] == "article" and not calls["call_2"]["answered"]
    digest = hashlib.sha256(PNG).hexdigest()
    assert truth["payloads"] == {digest: {"job_id": JOB[0], "task_version": "1", "role": "image:1"}}
    assert service.payload_owner(digest) == {"job_id": JOB[0], "task_version": "1", "role": "image:1"}
    assert list(truth["watermarks"]) == ["<!-- durable-harness job=job-baseline-3f9a1c version=1 role=article -->"]
    items = [r for r in api.got if r.url.path.endswith("/items")]
    assert len(items) == 2 and all(r.headers["openai-beta"] == "agents=v1" for r in items)


def test_the_article_calls_truth_is_the_fakes_own_for_every_call_of_a_run(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``call_truth`` reads from a call is what the sessions fake's agent declared for it, for every
    call of a baseline run: each call's role, each upload's bytes, the draft's watermark."""
    import durable_harness.fakes.openai_agents._turns as turns
    from durable_harness.harness import run_scenario

    seen: dict[str, Any] = {}
    issue = turns.function_call_item

    def noted(item_id: str, turn_id: str, call_id: str, name: str, arguments: Any) -> dict[str, Any]:
        seen[call_id] = call_truth(name, arguments)  # the arguments as the candidate gets them
        return issue(item_id, turn_id, call_id, name, arguments)

    monkeypatch.setattr(turns, "function_call_item", noted)
    doc = run_scenario(load_scenario(SCENARIOS / "baseline.yaml"), "reference", None, tmp_path)
    truth = doc["truth"]["openai"]
    assert len(truth["tool_calls"]) == 7 and set(seen) == {c["call_id"] for c in truth["tool_calls"]}
    for call in truth["tool_calls"]:
        assert seen[call["call_id"]].role == call["role"], call
    derived = {sha: t.role for t in seen.values() for sha in t.payload_sha256}
    assert len(derived) == 3 and derived == {sha: owner["role"] for sha, owner in truth["payloads"].items()}
    assert {m for t in seen.values() for m in t.watermarks} == set(truth["watermarks"])


@pytest.mark.parametrize(("scenario", "why"), [
    ("coding-baseline.yaml", "coding workload's ground truth"),
    ("platform-retries-a-step.yaml", "workload.params.retry_step"),
    ("forged-webhooks.yaml", "webhooks"),
])
def test_what_needs_the_sessions_fake_is_not_applicable_against_a_sessions_api_by_url(scenario: str, why: str) -> None:
    real = {"openai": Upstream("openai", API, "", HARNESS_KEY)}
    path = SCENARIOS / scenario
    if not path.exists():
        pytest.fail(f"{scenario} is not in the catalogue any more: pick another that needs the fake this way")
    found = not_applicable(load_scenario(path), real)
    assert found is not None and why in found, found
    assert not_applicable(load_scenario(SCENARIOS / "baseline.yaml"), real) is None
    assert not_applicable(load_scenario(SCENARIOS / "session-create-502-after-commit.yaml"), real) is None
    assert not_applicable(load_scenario(SCENARIOS / "cancel-before-first-write.yaml"), real) is None  # read live


def test_a_sessions_api_by_url_needs_its_key_and_no_credentials_in_its_url() -> None:
    with pytest.raises(ValueError, match="DH_OPENAI_API_KEY is not"):
        upstream("openai", {"DH_SERVICE_OPENAI": API})
    with pytest.raises(ValueError, match="credentials do not go in the URL"):
        upstream("openai", {"DH_SERVICE_OPENAI": "http://k:s@127.0.0.1:9/v1", "DH_OPENAI_API_KEY": "k"})
    found = upstream("openai", {"DH_SERVICE_OPENAI": API + "/", "DH_OPENAI_API_KEY": HARNESS_KEY})
    assert found is not None and found.url == API and HARNESS_KEY not in repr(found)


def test_its_runs_keep_the_wall_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DH_SERVICE_OPENAI", API)
    monkeypatch.delenv(TIME_SCALE_ENV, raising=False)
    assert time_scale() == 1.0
    monkeypatch.setenv(TIME_SCALE_ENV, "20")
    with pytest.raises(ValueError, match="keeps the wall clock, scale 1"):
        time_scale()
    clock = RealTimeClock(1.0, WorldLock(), wall=True)
    clock.pause()  # a restart does not stop the wall clock
    assert not clock.paused
    before = clock.now()
    clock.advance_to(before + 100)  # nor does an idle candidate skip it
    assert clock.now() < before + 1


def test_the_command_line_refuses_a_candidate_that_does_not_keep_real_time(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import durable_harness.harness.services._upstream_preflight as preflight

    monkeypatch.setattr(preflight, "checked_problems", lambda site: [])
    monkeypatch.setenv("DH_OPENAI_API_KEY", HARNESS_KEY)
    monkeypatch.setenv("DH_SERVICE_OPENAI", "")  # what the command line sets is undone after the test
    monkeypatch.delenv(TIME_SCALE_ENV, raising=False)
    code = main(["run", "--candidate", "reference", "--service", f"openai={API}", "--scenario",
                 str(SCENARIOS / "baseline.yaml"), "--report", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 3 and "serve the control plane as a process (--candidate 'cmd:...')" in err, err
    assert HARNESS_KEY not in err


def test_its_conditions_are_read_live_from_the_upstream_at_most_once_an_instant() -> None:
    from durable_harness.harness._clock import VirtualClock

    api, clock = Api(), VirtualClock()
    api.session["required_actions"] = [{"type": "function_call", "call_id": "call_2", "name": "wp_create_draft"}]
    service = _service(api, clock)
    conditions = service.conditions()
    assert not conditions["tool_call_pending"](None)  # no session seen yet: nothing to read
    service.handle(_request("GET", "/agents/sessions/sess_1"))
    clock.sleep(1.0)
    assert conditions["tool_call_pending"]("wp_create_draft") and conditions["tool_call_pending"](None)
    assert not conditions["tool_call_pending"]("wp_upload_media") and not conditions["agent_working"](None)
    reads = len(api.got)
    api.session["status"] = "in_progress"
    assert not conditions["agent_working"](None)  # the same instant: the read stands
    assert len(api.got) == reads
    clock.sleep(1.0)
    assert conditions["agent_working"](None) and len(api.got) == reads + 1


def test_list_says_for_each_real_service_whether_a_scenario_runs_against_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", str(SCENARIOS / "coding-baseline.yaml"), str(SCENARIOS / "baseline.yaml")]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.startswith("  ")}
    assert "real wordpress: yes; real openai: no (the coding workload's ground truth" in lines["coding-baseline"]
    assert "real wordpress: yes; real openai: yes]" in lines["baseline"]


@pytest.mark.parametrize("keep", [False, True])
def test_the_runs_sessions_are_deleted_upstream_at_the_end_unless_kept(keep: bool) -> None:
    api = Api()
    service = _service(api, keep=keep)
    service.settle()
    service.close()
    deleted = [r.url.path for r in api.got if r.method == "DELETE"]
    assert deleted == ([] if keep else ["/v1/agents/sessions/sess_1"])
    assert service.cleaned == ([] if keep else ["sess_1"])


def test_a_session_the_gate_never_saw_is_found_by_the_listing_and_read_by_its_id() -> None:
    """A create whose answer never passed the gate (the connection died): the listing by the job's
    metadata finds it at the end, and it is read by its id, as every session is."""
    api = Api()
    service = _service(api)
    service.settle()
    truth = service.truth()
    assert [s["id"] for s in truth["sessions"]] == ["sess_1"] and len(truth["tool_calls"]) == 2
    assert any(r.url.path == "/v1/agents/sessions/sess_1" and r.method == "GET" for r in api.got)


def test_the_harnesss_own_reads_are_sent_again_once_when_the_connection_failed_under_them() -> None:
    """A kept-alive connection the upstream had just closed: the harness's own read (or deletion)
    goes again once; the candidate's requests are never repeated by the gate."""
    api, failures = Api(), [1]

    def flaky(request: httpx.Request) -> httpx.Response:
        if failures and request.method == "DELETE":
            failures.pop()
            raise httpx.ReadError("the connection was closed", request=request)
        return api(request)

    service = _service(api)
    service._http = httpx.Client(transport=httpx.MockTransport(flaky))
    service.settle()
    service.close()
    assert service.cleaned == ["sess_1"]
    tried: list[str] = []

    def dead(request: httpx.Request) -> httpx.Response:
        tried.append(request.url.path)
        raise httpx.ReadError("the connection was closed", request=request)

    down = _service(Api())
    down._http = httpx.Client(transport=httpx.MockTransport(dead))
    assert down.handle(_request("GET", "/agents/sessions/sess_1")).status == 502
    assert tried == ["/v1/agents/sessions/sess_1"]  # the candidate's request: once, never again


@pytest.mark.slow  # about 2,000 requests over loopback
def test_serve_fake_serves_for_as_long_as_it_runs_not_one_steps_worth(tmp_path: Path) -> None:
    """Its requests are nobody's step: the gate's bound on one step's requests (2,000, a runaway
    candidate) does not stop it after the 2,000th request of all its clients; the real SDK reads it."""
    import io
    import threading

    import openai

    from durable_harness.harness._gate import MAX_REQUESTS_PER_STEP
    from durable_harness.harness._serve_fake import serve_fake

    stop, out = threading.Event(), io.StringIO()
    env_file = tmp_path / "fake-openai.env"
    codes: list[int] = []
    server = threading.Thread(target=lambda: codes.append(serve_fake([SCENARIOS / "baseline.yaml"], seed=3,
                                                                         env_file=env_file, out=out, stop=stop)))
    server.start()
    try:
        for _ in range(200):
            if "openai: " in out.getvalue() and env_file.exists():
                break
            stop.wait(0.05)
        values = dict(line.split("=", 1) for line in env_file.read_text().splitlines())
        client = openai.OpenAI(base_url=values["OPENAI_BASE_URL"], api_key=values["OPENAI_API_KEY"], max_retries=0)
        with httpx.Client() as http:
            headers = {"authorization": f"Bearer {values['OPENAI_API_KEY']}", "openai-beta": "agents=v1"}
            for _ in range(MAX_REQUESTS_PER_STEP + 5):
                assert http.get(f"{values['OPENAI_BASE_URL']}/agents/sessions", headers=headers).status_code == 200
        session = client.beta.agents.sessions.create(
            environment={"type": "none"}, agent={"model": "gpt-5.1", "instructions": "x"}, input="the task",
            metadata={"job_id": "job-baseline-0a1b2c", "task_version": "1"})  # a run's suffix: baseline's job
        assert client.beta.agents.sessions.retrieve(session.id).metadata == {"job_id": "job-baseline-0a1b2c",
                                                                               "task_version": "1"}
        assert values["OPENAI_API_KEY"] not in out.getvalue()
    finally:
        stop.set()
        server.join(timeout=30)
    assert codes == [0]
