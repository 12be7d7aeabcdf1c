"""The simulated OpenAI Agents sessions API (openai SDK 3.51 wire format) with scripted agents.

``SessionsFake(clock, rng, *, api_key, brains, think_s=1.5)`` is the gate's ``Service`` for
``http://openai.dh.test/v1``: sessions, turns, items, input events (messages, tool results,
cancel) with ``Idempotency-Key`` dedupe, cursor pagination, SDK-shaped errors. The agent in each
session is a ``Brain`` built by a ``BrainFactory`` (see ``brains``); ``ArticleBrain`` scripts the
article workload. ``SessionsFake.truth()`` is the ground truth the candidate cannot see::

    {"sessions":   [{id, metadata, status, deleted, created_at, turns, last_turn_status, user_inputs}],
     "payloads":   {sha256_of_media_bytes: {job_id, task_version, role: "image:<n>"}},
     "watermarks": {"<!-- durable-harness job=... version=... role=article -->": {job_id, task_version, role}},
     "tool_calls": [{session_id, turn_id, call_id, name, job_id, task_version, role, answered, success}]}

What it deliberately does not do (yet): SSE streams, webhooks, environments, artifacts, subagents.
"""

from fakes.openai_agents._errors import ApiError, unknown_pending_tool_call
from fakes.openai_agents._service import SessionsFake
from fakes.openai_agents.brains import (
    ArticleBrain,
    Brain,
    BrainFactory,
    Commentary,
    Fail,
    FinalAnswer,
    FunctionCall,
    Reasoning,
    Step,
    ToolResult,
)

__all__ = [
    "ApiError",
    "ArticleBrain",
    "Brain",
    "BrainFactory",
    "Commentary",
    "Fail",
    "FinalAnswer",
    "FunctionCall",
    "Reasoning",
    "SessionsFake",
    "Step",
    "ToolResult",
    "unknown_pending_tool_call",
]
