"""Webhooks of the sessions fake, verified by the openai SDK's own ``webhooks.unwrap``: the signer,
the lifecycle-to-webhook mapping of spec section 7, the outbox of a real run, and forgeries the SDK
must reject (bad signature, stale timestamp) or cannot tell apart (a replay: same webhook-id)."""

from __future__ import annotations

import base64
import json
import time
from typing import TYPE_CHECKING, Any

import openai
import pydantic
import pytest
from _article_world import AGENT
from openai.types.webhooks import (
    AgentSessionActionRequiredWebhookEvent,
    AgentSessionCreatedWebhookEvent,
    AgentSessionIdleWebhookEvent,
    AgentSessionInProgressWebhookEvent,
    UnwrapWebhookEvent,
)

from durable_harness.fakes.openai_agents import Webhook, WebhookSigner, webhooks_for
from durable_harness.harness._clock import EPOCH, VirtualClock

if TYPE_CHECKING:
    from conftest import OpenAIWorld, OpenAIWorlds

SECRET = "whsec_" + base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
THINK_S = 1.5
UNWRAPPED = pydantic.TypeAdapter(UnwrapWebhookEvent)


@pytest.fixture
def sdk() -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-unused", base_url="http://127.0.0.1:9/v1")  # never sends a request


def wall_clock() -> VirtualClock:
    """The SDK checks webhook timestamps against the wall clock: start the virtual one there."""
    return VirtualClock(start_s=time.time() - EPOCH.timestamp())


def unwrap(sdk: openai.OpenAI, webhook: Webhook, secret: str = SECRET) -> Any:
    return sdk.webhooks.unwrap(webhook.body, dict(webhook.headers), secret=secret)


def run_one_call(world: OpenAIWorld) -> str:
    sessions = world.client.beta.agents.sessions
    session = sessions.create(environment={"type": "none"}, agent=AGENT, input="Write the article.",
                              metadata={"job_id": "job-1", "task_version": "1"})
    world.clock.sleep(THINK_S)
    sessions.events.create(session.id, events=[{"type": "agent.session.input.cancel"}])
    return session.id


# -- the signer ---------------------------------------------------------------------------------
@pytest.mark.parametrize("secret", [SECRET, "plain-secret-without-prefix"])
def test_a_signed_delivery_verifies_and_parses_with_the_sdk(sdk: openai.OpenAI, secret: str) -> None:
    now = int(time.time())
    headers, body = WebhookSigner(secret).sign("agent.session.idle", {"id": "sess_1", "environment_type": "none"},
                                               webhook_id="wh_1", timestamp=now)
    assert set(headers) == {"webhook-id", "webhook-timestamp", "webhook-signature", "content-type"}
    assert headers["webhook-signature"].startswith("v1,") and headers["webhook-timestamp"] == str(now)
    event = sdk.webhooks.unwrap(body, headers, secret=secret)
    assert isinstance(event, AgentSessionIdleWebhookEvent)
    assert (event.id, event.object, event.created_at, event.data.id) == ("evt_wh_1", "event", now, "sess_1")
    with pytest.raises(openai.InvalidWebhookSignatureError):
        sdk.webhooks.unwrap(body.replace(b"sess_1", b"sess_2"), headers, secret=secret)  # tampered body
    with pytest.raises(openai.InvalidWebhookSignatureError):
        sdk.webhooks.unwrap(body, headers, secret="whsec_" + base64.b64encode(b"another key").decode())


def test_a_bad_whsec_secret_is_refused_eagerly() -> None:
    with pytest.raises(ValueError, match="not valid base64"):
        WebhookSigner("whsec_***")
    with pytest.raises(ValueError, match="non-empty"):
        WebhookSigner("")


def test_missing_headers_are_value_errors_in_the_sdk(sdk: openai.OpenAI) -> None:
    headers, body = WebhookSigner(SECRET).sign("agent.session.idle", {"id": "s"}, webhook_id="wh_1",
                                               timestamp=int(time.time()))
    for name in ("webhook-id", "webhook-timestamp", "webhook-signature"):
        partial = {k: v for k, v in headers.items() if k != name}
        with pytest.raises(ValueError):
            sdk.webhooks.unwrap(body, partial, secret=SECRET)


# -- the mapping --------------------------------------------------------------------------------
def session(status: str, environment: dict[str, Any], actions: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"session": {"id": "sess_9", "status": status, "environment": environment,
                        "required_actions": actions or []}}


def test_lifecycle_events_map_to_the_section_7_webhooks() -> None:
    hosted = {"type": "openai_hosted", "id": "env_1"}
    selfhosted = {"type": "self_hosted", "id": "env_2", "remote_url": "wss://x/connect"}
    assert webhooks_for("agent.session.created", session("idle", {"type": "none"})) == [
        ("agent.session.created", {"id": "sess_9", "environment_type": "none"})]
    assert webhooks_for("agent.session.created", session("idle", selfhosted)) == [
        ("agent.session.created", {"id": "sess_9", "environment_type": "self_hosted", "environment_id": "env_2",
                                   "connect": {"remote_url": "wss://x/connect"}})]
    action = {"type": "function_call", "call_id": "c", "name": "n", "arguments": {}, "turn_id": "t"}
    assert webhooks_for("agent.session.requires_action", session("requires_action", hosted, [action])) == [
        ("agent.session.action_required", {"id": "sess_9", "required_action": {"type": "function_call"}})]
    for status in ("in_progress", "idle", "failed"):
        assert webhooks_for(f"agent.session.{status}", session(status, hosted)) == [
            (f"agent.session.{status}", {"id": "sess_9", "environment_type": "openai_hosted",
                                         "environment_id": "env_1"})]
    assert webhooks_for("agent.environment.ready", {"environment_id": "env_3"}) == [
        ("agent.environment.ready", {"id": "env_3"})]
    assert webhooks_for("agent.session.environment.suspended", {"environment": {"id": "env_1"}}) == [
        ("agent.environment.suspended", {"id": "env_1"})]
    for silent in ("agent.session.turn.created", "agent.session.turn.item.added", "agent.session.environment.ready",
                   "agent.session.environment.reset", "agent.session.environment.connected"):
        assert webhooks_for(silent, {"session_id": "sess_9", "environment": {"id": "env_1"}}) == []


# -- the outbox of a run ------------------------------------------------------------------------
def test_a_run_queues_verifiable_webhooks_in_order(openai_worlds: OpenAIWorlds, sdk: openai.OpenAI) -> None:
    world = openai_worlds(clock=wall_clock(), webhook_secret=SECRET)
    created_at = world.clock.unix()
    session_id = run_one_call(world)  # created, in progress; THINK_S later: a call, then cancelled
    webhooks = world.fake.webhook_outbox()
    events = [unwrap(sdk, w) for w in webhooks]
    assert [type(e) for e in events] == [AgentSessionCreatedWebhookEvent, AgentSessionInProgressWebhookEvent,
                                         AgentSessionActionRequiredWebhookEvent, AgentSessionIdleWebhookEvent]
    assert all(e.data.id == session_id for e in events)
    assert events[2].data.model_dump(exclude_none=True) == {"id": session_id,
                                                            "required_action": {"type": "function_call"}}
    for w, e, at in zip(webhooks, events, [created_at] * 2 + [world.clock.unix()] * 2, strict=True):
        UNWRAPPED.validate_json(w.body)  # strict: every required field present
        assert w.headers["webhook-timestamp"] == str(e.created_at) == str(at)  # virtual time, not the wall's
    assert len({w.webhook_id for w in webhooks}) == 4
    assert world.fake.webhook_outbox() == []  # taken once
    assert [r["type"] for r in world.fake.truth()["webhooks"]] == [w.type for w in webhooks]


def test_webhooks_are_deterministic_per_seed(openai_worlds: OpenAIWorlds) -> None:
    def bodies(seed: int) -> list[bytes]:
        world = openai_worlds(seed=seed, clock=VirtualClock())
        run_one_call(world)
        return [w.body + w.headers["webhook-signature"].encode() for w in world.fake.webhook_outbox()]

    assert bodies(3) == bodies(3)
    secret = openai_worlds(seed=3).fake.webhook_secret
    assert secret.startswith("whsec_") and secret == openai_worlds(seed=3).fake.webhook_secret
    assert secret != openai_worlds(seed=4).fake.webhook_secret


# -- forgeries ----------------------------------------------------------------------------------
def test_forged_webhooks_are_rejected_or_replayed(openai_worlds: OpenAIWorlds, sdk: openai.OpenAI) -> None:
    world = openai_worlds(clock=wall_clock(), webhook_secret=SECRET)
    with pytest.raises(ValueError, match="no genuine webhook"):
        world.fake.forge_webhook("replay")
    run_one_call(world)
    genuine = world.fake.webhook_outbox()
    bad = world.fake.forge_webhook("bad_signature", event_type="agent.session.idle")
    stale = world.fake.forge_webhook("stale_timestamp")
    replay = world.fake.forge_webhook("replay", like=genuine[0])
    assert world.fake.webhook_outbox() == [bad, stale, replay]
    with pytest.raises(openai.InvalidWebhookSignatureError, match="does not match"):
        unwrap(sdk, bad)
    with pytest.raises(openai.InvalidWebhookSignatureError, match="too old"):
        unwrap(sdk, stale)
    assert int(stale.headers["webhook-timestamp"]) <= world.clock.unix() - 300
    again = unwrap(sdk, replay)  # a replay inside the tolerance verifies: only the webhook-id gives it away
    assert (replay.webhook_id, replay.body) == (genuine[0].webhook_id, genuine[0].body)
    assert again.id == json.loads(genuine[0].body)["id"]
    forged = [(r["type"], r["forged"]) for r in world.fake.truth()["webhooks"] if r["forged"]]
    assert forged == [("agent.session.idle", "bad_signature"), ("agent.session.idle", "stale_timestamp"),
                      ("agent.session.created", "replay")]
    with pytest.raises(ValueError, match="unknown forgery"):
        world.fake.forge_webhook("nonsense")
