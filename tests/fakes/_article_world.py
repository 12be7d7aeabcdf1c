"""What the tests of the sessions fake with the article brain share: the job, a stand-in WordPress
that answers the brain's tools (as a driver's tool results or as the SDK's ``tool_handlers``), a
world that polls a session and answers its required actions on the virtual clock, and a bounded
read of an event stream.

It deliberately talks to no real WordPress: the brain only needs plausible ids back (the
conformance of the WordPress fake is tested on its own)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import openai
from openai.types.beta import AgentSession, AgentSessionMessage

from durable_harness.fakes.openai_agents import ArticleBrain, SessionsFake
from durable_harness.harness._clock import VirtualClock

if TYPE_CHECKING:
    from conftest import OpenAIWorlds

THINK_S = 1.5
TOOLS = ["wp_upload_media", "wp_create_draft", "wp_update_post", "wp_set_seo", "wp_get_post"]
SCRIPT = [TOOLS[0]] * 3 + TOOLS[1:]  # the calls of a run with the default three images
META = {"job_id": "job-1", "task_version": "1"}
AGENT = {"model": "gpt-5", "tools": ArticleBrain.tools()}  # the agent can call only the tools it declares
MAX_EVENTS = 500  # every loop over a stream is bounded, whatever the fake does

Answer = Callable[[Any], "dict[str, Any] | None"]
ToolHandler = Callable[[dict[str, Any]], dict[str, Any]]


def article_job(job_id: str = "job-1", version: str = "1", **inputs: Any) -> dict[str, Any]:
    return {"job_id": job_id, "task_version": version, "workload": "article",
            "input": {"topic": "home composting", "title": "Home Composting 101", "focus_keyword": "compost",
                      **inputs}, "allowed_tools": SCRIPT}


class StandInWordPress:
    """Answers the article brain's tools: ids for creates (media from 101, post 501), a read-back for reads."""

    def __init__(self) -> None:
        self._media_ids = itertools.count(101)

    def answer(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        if name == "wp_upload_media":
            media_id = next(self._media_ids)
            return {"media_id": media_id, "source_url": f"https://wp.dh.test/m/{media_id}.png"}
        if name == "wp_create_draft":
            return {"post_id": 501, "link": "https://wp.dh.test/?p=501"}
        if name == "wp_get_post":
            return {"post_id": arguments["post_id"], "status": "draft"}
        return {"ok": True}


def handlers(log: list[str]) -> dict[str, ToolHandler]:
    """A fresh stand-in WordPress as the SDK's ``tool_handlers``; every call's tool name goes to ``log``."""
    wordpress = StandInWordPress()

    def tool(name: str) -> ToolHandler:
        def run(arguments: dict[str, Any]) -> dict[str, Any]:
            log.append(name)
            return wordpress.answer(name, arguments)
        return run

    return {name: tool(name) for name in TOOLS}


def bounded(events: Iterable[Any]) -> list[Any]:
    """The events of a stream that must end within ``MAX_EVENTS``."""
    taken = list(itertools.islice(events, MAX_EVENTS))
    assert len(taken) < MAX_EVENTS, "the stream did not end"
    return taken


@dataclass
class ArticleWorld:
    clock: VirtualClock
    fake: SessionsFake
    client: openai.OpenAI
    calls: list[Any] = field(default_factory=list)     # every required action answered, in order
    stand_in: StandInWordPress = field(default_factory=StandInWordPress)

    def wordpress(self, action: Any) -> dict[str, Any]:
        """The stand-in WordPress's answer to ``action``."""
        return self.stand_in.answer(action.name, action.arguments)

    def drive(self, session_id: str, answer: Answer | None = None, *,
              stop_at: Callable[[Any], bool] | None = None, max_steps: int = 40) -> AgentSession:
        """Poll, sleep on the virtual clock, answer every required action until idle or failed.

        An action for which ``stop_at`` is true is left pending and the session returned. Else
        ``answer`` gives the tool_result event's fields (``success`` and ``output``/``error``; by
        default a success with the stand-in WordPress's answer), or None to stop there too.
        """
        sessions = self.client.beta.agents.sessions
        for _ in range(max_steps):
            session = sessions.retrieve(session_id)
            if session.status in ("idle", "failed"):
                return session
            if session.status == "in_progress":
                self.clock.sleep(THINK_S)
                continue
            action = session.required_actions[0]
            if stop_at is not None and stop_at(action):
                return session
            reply = answer(action) if answer is not None else {"success": True,
                                                               "output": json.dumps(self.wordpress(action))}
            if reply is None:
                return session
            self.calls.append(action)
            sessions.events.create(session_id, events=[{"type": "agent.session.input.tool_result",
                                                        "turn_id": action.turn_id, "call_id": action.call_id,
                                                        **reply}])
        raise AssertionError(f"session {session_id!r} did not settle within {max_steps} steps")

    def start(self, text: str = "Write the article about home composting.",
              metadata: dict[str, str] | None = None) -> str:
        """A new session (no environment) for ``metadata``, by default ``META``."""
        return self.client.beta.agents.sessions.create(
            environment={"type": "none"}, agent=AGENT, input=text,
            metadata=META if metadata is None else metadata).id

    def say(self, session_id: str, text: str) -> None:
        self.client.beta.agents.sessions.events.create(session_id, events=[{
            "type": "agent.session.input.message",
            "input": [{"role": "user", "content": [{"type": "input_text", "text": text}]}]}])

    def cancel_and_say(self, session_id: str, text: str) -> None:
        """Cancel the active turn, if any, then send ``text``."""
        if self.client.beta.agents.sessions.retrieve(session_id).status != "idle":
            self.client.beta.agents.sessions.events.create(session_id, events=[{"type": "agent.session.input.cancel"}])
        self.say(session_id, text)

    def messages(self, session_id: str) -> list[AgentSessionMessage]:
        items = self.client.beta.agents.sessions.items.list(session_id, order="asc", limit=100)
        return [i for i in items if isinstance(i, AgentSessionMessage)]

    def last_answer(self, session_id: str) -> str:
        """The text of the session's newest item, which must be a final answer."""
        items = self.client.beta.agents.sessions.items.list(session_id, limit=1)
        message = items.data[0]
        assert message.type == "message" and message.phase == "final_answer"
        return message.output_text

    def roles(self) -> list[str]:
        """The role of every function call the brain issued, in order (from the fake's truth)."""
        return [c["role"] for c in self.fake.truth()["tool_calls"]]


def make_world(worlds: OpenAIWorlds, jobs: list[dict[str, Any]] | None = None, seed: int = 11) -> ArticleWorld:
    """The brain's behaviour does not depend on the transport: in-process through the gate only."""
    base = worlds(*(jobs if jobs is not None else [article_job()]), seed=seed, think_s=THINK_S)
    return ArticleWorld(base.clock, base.fake, base.client)
