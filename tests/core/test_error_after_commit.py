"""``error_after_commit``: the service applies the request, then the client gets a 5xx or a reset —
on any service (a tiny counter, WordPress, the sessions API through the real openai SDK)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from durable_harness.fakes.openai_agents import ArticleBrain, SessionsFake
from durable_harness.harness import History, ScenarioError, VirtualClock, load_scenario
from durable_harness.harness._gate import Gate
from durable_harness.harness.faults import Trigger, get_fault_kind
from durable_harness.harness.services import get_service
from durable_harness.wire import Request, Response, json_response


class Counter:
    name = "counter"
    host = "counter.test"
    root = "/api"

    def __init__(self) -> None:
        self.items: list[int] = []

    def handle(self, request: Request) -> Response:
        if request.method == "POST":
            self.items.append(len(self.items) + 1)
            return json_response(201, {"id": self.items[-1]})
        return json_response(200, self.items)

    def mutations(self) -> int:
        return len(self.items)

    def credential(self, request: Request) -> str | None:
        return None


def _counter(params: dict[str, Any], error_response: Any = None) -> tuple[Counter, httpx.Client, Gate]:
    clock, history, svc = VirtualClock(), History(), Counter()
    fault = get_fault_kind("error_after_commit")(0, Trigger("counter", "POST", "/items"), params)
    gate = Gate(clock, history, [svc], [fault], error_responses={"counter": error_response} if error_response else None)
    return svc, httpx.Client(transport=gate.transport("worker-1"), base_url="http://counter.test/api"), gate


@pytest.mark.parametrize("status", [502, 504])
def test_a_gateway_status_is_a_proxy_page_after_the_commit(status: int) -> None:
    svc, client, gate = _counter({"status": status})
    r = client.post("/items")
    assert r.status_code == status and r.headers["content-type"] == "text/html" and b"<center>nginx</center>" in r.content
    assert svc.items == [1], "the request was applied before the error"
    assert gate.faults[0].status == "fired"
    assert gate.faults[0].state.evidence[0]["committed"] is True
    _, done = gate.history.operations()[0]
    assert done is not None and done.type == "info" and done.data["committed"] is True
    assert client.post("/items").status_code == 201, "it fires once (times: 1)"


def test_a_500_is_the_services_own_error_and_retry_after_is_passed_on() -> None:
    def service_error(status: int, headers: Any) -> Response:
        return Response(status, {**headers, "content-type": "application/json"}, json.dumps({"own": status}).encode())

    svc, client, _ = _counter({"status": 500, "retry_after_s": 7}, service_error)
    r = client.post("/items")
    assert (r.status_code, r.json(), r.headers["retry-after"]) == (500, {"own": 500}, "7")
    svc2, client2, _ = _counter({"status": 502, "source": "service"}, service_error)
    assert client2.post("/items").json() == {"own": 502}


def test_reset_mode_commits_then_resets() -> None:
    svc, client, gate = _counter({"mode": "reset"})
    with pytest.raises(httpx.RemoteProtocolError):
        client.post("/items")
    assert svc.items == [1] and gate.faults[0].state.evidence[0]["lost"] == "reset"


def test_wordpress_500_after_commit_is_a_critical_error_and_the_draft_exists() -> None:
    clock, history = VirtualClock(), History()
    from durable_harness.harness.services import ServiceContext
    built = get_service("wordpress").build(ServiceContext(clock, history, 1, {}, None, {}))
    fault = get_fault_kind("error_after_commit")(0, Trigger("wordpress", "POST", "/wp/v2/posts"), {"status": 500})
    gate = Gate(clock, history, [built.fake], [fault], error_responses={"wordpress": built.error_response})
    creds = built.endpoint.credentials
    client = httpx.Client(transport=gate.transport("w"), base_url="http://wordpress.dh.test/wp-json",
                          auth=(creds["username"], creds["app_password"]))
    r = client.post("/wp/v2/posts", json={"title": "t", "status": "draft"})
    assert r.status_code == 500 and r.json()["code"] == "internal_server_error"
    assert "critical error" in r.json()["message"] and r.json()["additional_errors"] == []
    assert [p["title"] for p in built.fake.truth()["posts"]] == ["t"]


def test_sessions_api_error_after_commit_the_sdk_raises_and_the_session_exists() -> None:
    clock, history = VirtualClock(), History()
    job = {"job_id": "job-1", "task_version": "1", "workload": "article",
           "input": {"topic": "t", "title": "T", "focus_keyword": "k"}, "allowed_tools": []}
    fake = SessionsFake(clock, __import__("random").Random(1), api_key="sk-x",
                        brains=ArticleBrain.factory({("job-1", "1"): job}, seed=1))
    fault = get_fault_kind("error_after_commit")(0, Trigger("openai", "POST", "/agents/sessions"), {"status": 503})
    gate = Gate(clock, history, [fake], [fault])
    client = openai.OpenAI(api_key="sk-x", base_url=f"http://{fake.host}{fake.root}", max_retries=0,
                           http_client=httpx.Client(transport=gate.transport("w")))
    with pytest.raises(openai.APIStatusError) as raised:
        client.beta.agents.sessions.create(environment={"type": "none"}, input="write it",
                                           agent={"model": "gpt-5", "tools": ArticleBrain.tools()},
                                           metadata={"job_id": "job-1", "task_version": "1"})
    assert raised.value.status_code == 503
    assert fault.status == "fired" and fault.state.evidence[0]["committed"] is True
    assert len(fake.truth()["sessions"]) == 1, "the session was created before the error"


def test_bad_parameters_are_a_one_line_scenario_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("id: bad\ntitle: a bad status\ncovers: errors after commit\nworkload: {kind: article}\nfaults:\n"
                    "  - kind: error_after_commit\n    at: {service: wordpress, method: POST, route: /wp/v2/posts}\n"
                    "    status: 418\nexpect: {outcome: needs_human}\nmust_catch: []\n")
    with pytest.raises(ScenarioError) as raised:
        load_scenario(path)
    message = str(raised.value)
    assert "\n" not in message and "bad.yaml" in message and "faults[0].status" in message and "418" in message
