"""The simulated OpenAI Agents sessions API (openai SDK 3.51 wire format) with scripted agents.

``SessionsFake(clock, rng, *, api_key, brains, think_s=1.5, idle_close_s=300.0,
webhook_secret=None, executor=None)`` is the gate's ``Service`` for
``http://openai.dh.test/v1``: sessions, turns, items, input events (messages, tool results,
cancel) with ``Idempotency-Key`` dedupe, cursor pagination, SDK-shaped errors (a malformed body is
a 400 whose ``param`` names the field). The agent in each session is a ``Brain`` built by a
``BrainFactory`` (see ``brains``); ``ArticleBrain`` scripts the article workload. A session's agent
needs a ``model`` and calls only the function tools its ``agent.tools`` declare; lacking one, it
ends its turn with a final answer saying so. ``ArticleBrain.tools()`` and ``CodingBrain.tools()``
are definitions that fit what the brains send. ``SessionsFake.truth()`` is the ground truth the candidate cannot see::

    {"sessions":   [{id, metadata, status, deleted, created_at, turns, last_turn_status, user_inputs}],
     "payloads":   {sha256_of_media_bytes: {job_id, task_version, role: "image:<n>"}},
     "watermarks": {"<!-- durable-harness job=... version=... role=article -->": {job_id, task_version, role}},
     "tool_calls": [{session_id, turn_id, call_id, name, job_id, task_version, role, issued_at, answered,
                     success, answered_at, sent_at?}],   # times in virtual seconds; sent_at: when the
                                                         # answer reached the world, if before answered_at
     "subagents":  [{id, session_id, parent_agent_id, name, root_turn_id, status, opened_at, closed_at,
                     turns: [{id, status}], report}],
     "webhooks":   [{webhook_id, event_id, type, subject, timestamp, forged}]}

The live event stream (``GET .../events``, ``POST /agents/sessions`` with ``stream: true``) is SSE
on the virtual clock, bounded by ``idle_close_s``. Webhooks are signed with ``webhook_secret`` as
the SDK's ``webhooks.unwrap`` verifies them; the World takes them with ``webhook_outbox()`` and
asks for forged ones with ``forge_webhook(kind)``. ``WebhookSigner`` and ``webhooks_for`` are the
pure builders behind them.

Hosted environments are sandboxes of a ``durable_harness.fakes.executor.Executor`` (``SessionsFake.executor``
holds the fault hooks): the prewarming API (``/agents/environments``, files as a TokenPage),
``environment_connection`` while disconnected, ``agent.session.environment.*`` events, and
session artifacts. ``CodingBrain`` scripts the coding workload inside the sandbox. The truth adds::

    {"environments": [{id, prewarmed, session_id, created_at, vault_ids}],
     "artifacts":    [{id, object, created_at, environment_id, path, session_id, size_bytes, turn_id,
                       sha256, reset_count, deleted}],
     "executor":     Executor.truth()}   # files, processes, status history, commands, faults

and coding payloads ``{sha256_of_report: {job_id, task_version, role: "report", tests_reset_count,
tests_passed, artifact_id, environment_id, path}}`` (their tool_calls carry the same ``facts``).

A brain's ``SpawnSubagent`` makes the root agent delegate to a subagent with its own turn
(``subagent_id`` set), items and ``agent.session.subagent.*`` events, served under
``.../subagents`` (see ``_subagents``); ``ArticleBrain`` does so with ``research_subagent: true``
and follows a structured recovery summary (``brains.recovery_summary``).

What it deliberately does not do (yet): input to or resumption of subagents, environment
templates, suspension.
"""

from durable_harness.fakes.openai_agents._errors import ApiError, unknown_pending_tool_call
from durable_harness.fakes.openai_agents._service import SessionsFake
from durable_harness.fakes.openai_agents._webhooks import Webhook, WebhookSigner, webhooks_for
from durable_harness.fakes.openai_agents.brains import (
    ArticleBrain,
    Brain,
    BrainFactory,
    CaptureArtifact,
    CodingBrain,
    Commentary,
    Fail,
    FinalAnswer,
    FunctionCall,
    Reasoning,
    RunCommand,
    SpawnSubagent,
    Step,
    ToolResult,
)

__all__ = [
    "ApiError",
    "ArticleBrain",
    "Brain",
    "BrainFactory",
    "CaptureArtifact",
    "CodingBrain",
    "Commentary",
    "Fail",
    "FinalAnswer",
    "FunctionCall",
    "Reasoning",
    "RunCommand",
    "SessionsFake",
    "SpawnSubagent",
    "Step",
    "ToolResult",
    "Webhook",
    "WebhookSigner",
    "unknown_pending_tool_call",
    "webhooks_for",
]
