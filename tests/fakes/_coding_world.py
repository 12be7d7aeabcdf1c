"""A world for the environments, artifacts and coding-brain tests: the sessions fake with the
coding brain behind the gate, the real openai SDK as client, a recorder of lifecycle events, and
a careful driver that plays the candidate (verifies a delivery before accepting it)."""

from __future__ import annotations

import base64
import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import openai
from openai.types.beta import AgentSession

from durable_harness.fakes.executor import Executor
from durable_harness.fakes.openai_agents import CodingBrain, SessionsFake
from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._gate import Gate
from durable_harness.harness._history import History

KEY = "sk-test-openai"
BASE = "http://openai.dh.test/v1"
THINK_S = 1.5
WINDOW_S = 120.0
BETA = {"OpenAI-Beta": "agents=v1"}

Answer = Callable[[AgentSession, Any], "dict[str, Any] | None"]


def coding_job(job_id: str = "job-c", version: str = "1", **inputs: Any) -> dict[str, Any]:
    return {"job_id": job_id, "task_version": version, "workload": "coding",
            "input": {"module": "slugify", "functions": ["slugify", "dedupe"], "report_path": "report.md", **inputs},
            "allowed_tools": ["deliver_result"]}


def inline(path: str, data: bytes) -> dict[str, str]:
    return {"type": "inline", "path": path, "data": base64.b64encode(data).decode()}


@dataclass
class CodingWorld:
    clock: VirtualClock
    fake: SessionsFake
    gate: Gate
    client: openai.OpenAI
    http: httpx.Client
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    answered: list[Any] = field(default_factory=list)
    verdicts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def executor(self) -> Executor:
        return self.fake.executor

    @property
    def sessions(self) -> Any:
        return self.client.beta.agents.sessions

    def raw(self, method: str, path: str, *, headers: dict[str, str] | None = None, **kwargs: Any) -> httpx.Response:
        merged = {"Authorization": f"Bearer {KEY}", **BETA, **(headers or {})}
        return self.http.request(method, BASE + path, headers=merged, **kwargs)

    def create(self, *, environment: dict[str, Any] | None = None, text: str | None = "Implement the module.",
               metadata: dict[str, str] | None = None) -> AgentSession:
        if metadata is None:
            metadata = {"job_id": "job-c", "task_version": "1"}
        params: dict[str, Any] = {"environment": environment or {"type": "openai_hosted"},
                                  "agent": {"model": "gpt-5", "tools": CodingBrain.tools()}, "metadata": metadata}
        if text is not None:
            params["input"] = text
        return self.sessions.create(**params)

    def say(self, session_id: str, text: str) -> None:
        self.sessions.events.create(session_id, events=[{
            "type": "agent.session.input.message",
            "input": [{"role": "user", "content": [{"type": "input_text", "text": text}]}]}])

    def resets_seen(self, environment_id: str) -> int:
        """The newest ``reset_count`` the candidate has been told about (0 when none)."""
        counts = [d["reset_count"] for t, d in self.events
                  if t == "agent.session.environment.reset" and d["environment_id"] == environment_id]
        return max(counts, default=0)

    def verify(self, session: AgentSession, action: Any) -> dict[str, Any]:
        """A careful candidate: the digest must match the artifact and the live file, and the tests must
        not predate the last reset it was told about."""
        args = action.arguments
        content = self.sessions.artifacts.content(args["artifact_id"], session_id=session.id).content
        env_id = session.environment.id  # type: ignore[union-attr]
        live = {f.path: f.size_bytes for f in self.client.beta.agents.environments.files.list(env_id, limit=100)}
        problems = []
        if hashlib.sha256(content).hexdigest() != args["sha256"]:
            problems.append("artifact digest mismatch")
        if live.get(args["path"]) != len(content):
            problems.append(f"{args['path']} is not in the environment as delivered")
        if args["tests"]["reset_count"] < self.resets_seen(env_id):
            problems.append(f"stale tests: ran at reset_count {args['tests']['reset_count']}, the environment "
                            f"was reset to {self.resets_seen(env_id)}")
        self.verdicts.append({"call_id": action.call_id, "problems": problems})
        if problems:
            return {"success": False, "error": "; ".join(problems)}
        return {"success": True, "output": json.dumps({"accepted": True, "sha256": args["sha256"]})}

    def drive(self, session_id: str, answer: Answer | None = None, max_steps: int = 40) -> AgentSession:
        """Poll; sleep while the agent thinks; answer function calls; stop when idle, failed, or an
        ``environment_connection`` is required (or ``answer`` returns None)."""
        for _ in range(max_steps):
            session = self.sessions.retrieve(session_id)
            if session.status in ("idle", "failed"):
                return session
            if session.status == "in_progress":
                self.clock.sleep(THINK_S)
                continue
            calls = [a for a in session.required_actions if a.type == "function_call"]
            if not calls:
                return session  # environment_connection: the harness must reconnect
            reply = (answer or self.verify)(session, calls[0])
            if reply is None:
                return session
            self.answered.append(calls[0])
            self.sessions.events.create(session_id, events=[{
                "type": "agent.session.input.tool_result", "turn_id": calls[0].turn_id,
                "call_id": calls[0].call_id, **reply}])
        raise AssertionError(f"session {session_id!r} did not settle within {max_steps} steps")

    def commands(self, session_id: str) -> list[Any]:
        return [i for i in self.sessions.items.list(session_id, order="asc", limit=100)
                if i.type == "command_execution"]

    def finals(self, session_id: str) -> list[str]:
        return [i.output_text for i in self.sessions.items.list(session_id, order="asc", limit=100)
                if i.type == "message" and i.phase == "final_answer"]

    def of_type(self, prefix: str) -> list[tuple[str, dict[str, Any]]]:
        return [(t, d) for t, d in self.events if t.startswith(prefix)]


def make_world(*jobs: dict[str, Any], seed: int = 5, window_s: float = WINDOW_S) -> CodingWorld:
    clock = VirtualClock()
    table = {(j["job_id"], j["task_version"]): j for j in (jobs or (coding_job(),))}
    executor = Executor(clock, random.Random(seed + 1), reconnect_window_s=window_s)
    fake = SessionsFake(clock, random.Random(seed), api_key=KEY, think_s=THINK_S, executor=executor,
                        brains=CodingBrain.factory(table, seed=seed))
    gate = Gate(clock, History(), [fake])
    client = openai.OpenAI(api_key=KEY, base_url=BASE, max_retries=0,
                           http_client=httpx.Client(transport=gate.transport("test")))
    world = CodingWorld(clock, fake, gate, client, httpx.Client(transport=gate.transport("raw")))

    def record(type_: str, data: Any) -> None:
        world.events.append((type_, json.loads(json.dumps(data))))

    fake.subscribe(record)
    return world
