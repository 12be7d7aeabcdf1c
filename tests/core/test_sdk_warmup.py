"""The zygote's warm-up of the openai SDK (``candidate._warm``): after it, the calls a control plane
makes of the sessions API (the bundled reference's, with their real parameters and answers shaped
as the fake sessions API gives them) build nothing more: no type hints read, no type adapter made,
no page model parametrised, no model's schema built, no subprocess asked for the platform. What the warm-up leaves out, each
forked instance pays again (about 25 ms of CPU at every crash point of a sweep).

Each test runs in a fresh interpreter: the warm-up fills caches of the process it runs in.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent('''
    import json, subprocess, sys
    import httpx
    WARM = sys.argv[1] == "warm"
    if WARM:
        from durable_harness.harness.isolation._warm import warm_sdk
        warm_sdk()
    import openai
    from openai._models import _CachedTypeAdapter
    from openai._utils import _transform
    from pydantic._internal import _generics, _model_construction

    models_built = [0]
    real_complete = _model_construction.complete_model_class
    def complete(*args, **kwargs):
        models_built[0] += 1
        return real_complete(*args, **kwargs)
    _model_construction.complete_model_class = complete

    SESSION = {"id": "sess_1", "object": "agent.session", "created_at": 1, "status": "idle", "metadata": {},
               "environment": {"type": "none"}, "agent": {"model": "m", "tools": []}}
    CALL = {"id": "item_1", "type": "function_call", "call_id": "call_1", "name": "wp_create_draft",
            "arguments": "{}", "status": "completed"}
    def answer(request):
        if "text/event-stream" in request.headers.get("accept", ""):
            event = {"type": "agent.session.status_changed", "event_id": "ev_1", "session": SESSION}
            return httpx.Response(200, headers={"content-type": "text/event-stream"},
                                  content=b"data: " + json.dumps(event).encode() + b"\\n\\n")
        if request.method == "GET" and request.url.path.endswith("/items"):
            return httpx.Response(200, json={"object": "list", "data": [CALL], "has_more": False})
        if request.method == "GET" and request.url.path.endswith("/files"):
            return httpx.Response(200, json={"object": "list", "data": [{"path": "/workspace/a.py", "type": "file"}],
                                             "has_more": False, "next_page_token": None})
        if request.method == "GET" and request.url.path.endswith("/sessions"):
            return httpx.Response(200, json={"object": "list", "data": [SESSION], "has_more": False})
        return httpx.Response(200, json=SESSION)

    def counts():
        return (_transform.get_type_hints.cache_info().currsize, _CachedTypeAdapter.cache_info().currsize,
                len(_generics._GENERIC_TYPES_CACHE), spawned[0], models_built[0])

    spawned = [0]
    real_popen = subprocess.Popen.__init__
    def popen(self, *args, **kwargs):
        spawned[0] += 1
        real_popen(self, *args, **kwargs)
    subprocess.Popen.__init__ = popen

    http = httpx.Client(transport=httpx.MockTransport(answer))
    client = openai.OpenAI(api_key="k", base_url="http://sessions.test/v1", http_client=http, max_retries=0)
    sessions = client.beta.agents.sessions
    before = counts()
    tools = [{"type": "function", "name": "wp_create_draft", "parameters": {"type": "object"}}]
    sessions.create(environment={"type": "none"}, agent={"model": "m", "instructions": "i", "tools": tools},
                    input="write", metadata={"job_id": "j"})
    sessions.create(environment={"type": "openai_hosted"}, agent={"model": "m"}, input="code")
    list(sessions.list(metadata={"job_id": "j"}))
    sessions.retrieve("sess_1")
    list(sessions.items.list("sess_1", order="asc", limit=100))
    sessions.events.create("sess_1", events=[{"type": "agent.session.input.tool_result", "call_id": "call_1",
                                              "output": "{}"}], idempotency_key="k")
    sessions.events.create("sess_1", events=[{"type": "agent.session.input.message", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "continue"}]}]}])
    with sessions.events.stream("sess_1") as stream:
        list(stream)
    list(client.beta.agents.environments.files.list("env_1", path="/workspace", limit=100))
    print(json.dumps({"before": before, "after": counts()}))
''')


def _caches_grown(mode: str) -> dict[str, list[int]]:
    import json

    done = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_after_the_warm_up_a_control_planes_calls_build_nothing_more() -> None:
    grown = _caches_grown("warm")
    hints, adapters, pages, subprocesses, models = (a - b for a, b in zip(grown["after"], grown["before"]))
    assert (hints, adapters, pages, subprocesses, models) == (0, 0, 0, 0, 0), grown


def test_without_it_the_same_calls_build_things_the_test_can_see() -> None:
    """The check above can fail: a cold SDK builds all five kinds of thing on these calls."""
    grown = _caches_grown("cold")
    hints, adapters, pages, subprocesses, models = (a - b for a, b in zip(grown["after"], grown["before"]))
    assert hints > 0 and adapters > 0 and pages > 0 and subprocesses > 0 and models > 0, grown
