"""The sessions API service (``openai``): the Agents sessions API with the workload's scripted agent, hosted
sandboxes (the executor) and webhooks to the candidate.

Conditions triggers may name: ``agent_working`` (some session is ``in_progress``: a turn runs and
waits for no one) and ``tool_call_pending`` / ``tool_call_pending:NAME`` (a function call, or one
of tool NAME, waits for its result). World effects faults may ask: ``kill_executor``,
``replace_executor``, ``disconnect_executor``. Webhook deliveries to the candidate are the extra
trigger channel ``webhooks``. An injected error has the SDK's error shape.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from durable_harness.harness._seeds import component_random, derive_seed
from durable_harness.harness.services._registry import BuiltService, ServiceContext, ServiceSpec, register_service
from durable_harness.harness.services._sessions_targets import TARGETS, classify
from durable_harness.harness.services._upstream import Upstream, keep_upstream, upstream
from durable_harness.wire import Response

if TYPE_CHECKING:
    from durable_harness.fakes.openai_agents import SessionsFake

__all__ = ["HOST", "SPEC"]

HOST = "openai.dh.test"
_ERROR_TYPES = {403: "permission_denied", 408: "timeout", 429: "rate_limit_exceeded"}


def _error_response(status: int, headers: Mapping[str, str]) -> Response:
    body = {"error": {"message": f"The server answered HTTP {status}.",
                      "type": _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error"),
                      "code": None, "param": None}}
    return Response(status=status, headers={**headers, "content-type": "application/json"}, body=json.dumps(body).encode())


def _build(ctx: ServiceContext) -> BuiltService:
    from durable_harness.fakes.openai_agents import SessionsFake  # imported when a run builds it, not by list/validate

    rng = component_random(ctx.seed, "world.secrets.openai")
    api_key = "sk-harness-" + "".join(rng.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(32))
    webhook_secret = "whsec_" + base64.b64encode(rng.randbytes(32)).decode()
    real = upstream("openai")
    if real is not None:  # a sessions API by URL behind the gate (``--service openai=URL``)
        return _build_real(ctx, real, api_key, webhook_secret)
    brains = ctx.workload.brain(ctx.jobs, derive_seed(ctx.seed, f"brain.{ctx.workload.name}"))
    fake = SessionsFake(ctx.clock, component_random(ctx.seed, "fakes.openai_agents"), api_key=api_key, brains=brains,
                        webhook_secret=webhook_secret)
    endpoint = _endpoint(ctx, api_key, webhook_secret)
    return BuiltService(fake=fake, endpoint=endpoint, secrets=(api_key, webhook_secret), error_response=_error_response,
                        conditions=_conditions(fake), effects=_effects(ctx, fake),
                        classify=lambda request, route, role_of: classify(fake, request, route, role_of))


def _endpoint(ctx: ServiceContext, api_key: str, webhook_secret: str) -> Any:
    """What the candidate is given: the gate's URL and the credentials the harness minted (the fake's
    or, against a sessions API by URL, the ones the gate maps to the harness's own key)."""
    from durable_harness.harness.candidate import ServiceEndpoint

    url = f"http://{HOST}/v1"
    # A process builds its own client: OPENAI_MAX_RETRIES says how many retries of its own the
    # scenario gives the SDK (as a team that kept the SDK's default would run it).
    retries = str(int(ctx.options.get("sdk_max_retries", 0)))
    return ServiceEndpoint(url=url, credentials={"api_key": api_key, "webhook_secret": webhook_secret}, variables={
        "OPENAI_BASE_URL": url, "OPENAI_API_KEY": api_key, "OPENAI_WEBHOOK_SECRET": webhook_secret,
        "OPENAI_MAX_RETRIES": retries})


def _build_real(ctx: ServiceContext, real: Upstream, api_key: str, webhook_secret: str) -> BuiltService:
    from durable_harness.harness._errors import HarnessError
    from durable_harness.harness.services._upstream_openai import UpstreamOpenAI

    from durable_harness.harness._realtime import RealTimeClock

    if not isinstance(ctx.clock, RealTimeClock):
        raise HarnessError("a sessions API by URL answers in real time: serve the control plane as a process "
                           "(--candidate 'cmd:...'), whose run keeps real time")
    if ctx.workload.call_truth is None:
        raise HarnessError(f"the {ctx.workload.name} workload's ground truth is the sessions fake's own: "
                           "it cannot run against a sessions API by URL")
    api = UpstreamOpenAI(ctx.clock, real, api_key=api_key, jobs=list(ctx.jobs), call_truth=ctx.workload.call_truth,
                         keep=keep_upstream())
    endpoint = _endpoint(ctx, api_key, webhook_secret)
    return BuiltService(fake=api, endpoint=endpoint, secrets=(api_key, webhook_secret, real.secret),
                        error_response=_error_response, conditions=api.conditions(),
                        classify=lambda request, route, role_of: classify(api, request, route, role_of))


def _conditions(fake: SessionsFake) -> dict[str, Any]:
    def pending(tool: str | None) -> bool:
        names = fake.pending_tool_calls()
        return bool(names) if tool is None else tool in names

    return {"agent_working": lambda _arg: fake.agent_working(), "tool_call_pending": pending}


def _effects(ctx: ServiceContext, fake: SessionsFake) -> dict[str, Any]:
    executor = fake.executor

    def sandbox(*states: str) -> str | None:
        """The sandbox, if there is one in a state the effect can act on (otherwise it does not fire:
        a sandbox already disconnected cannot disconnect again)."""
        ids = executor.environment_ids()
        return ids[0] if ids and executor.status(ids[0]) in states else None

    def kill(params: Mapping[str, Any]) -> dict[str, Any] | None:
        env = sandbox("ready", "connected", "disconnected", "suspended")
        return None if env is None else {"environment_id": env, "processes_killed": executor.kill(env)}

    def replace(params: Mapping[str, Any]) -> dict[str, Any] | None:
        env = sandbox("ready", "connected")
        return None if env is None else {"environment_id": env, "reset_count": executor.replace(env)}

    def disconnect(params: Mapping[str, Any]) -> dict[str, Any] | None:
        env = sandbox("connected")
        if env is None:
            return None
        closes_at = executor.disconnect(env)
        after = params.get("reconnect_after_s")
        if after is not None:
            ctx.clock.call_later(float(after), lambda: executor.reconnect(env))
        return {"environment_id": env, "window_closes_at_s": closes_at, "reconnect_after_s": after}

    def corrupt(params: Mapping[str, Any]) -> dict[str, Any] | None:
        return fake.corrupt_latest_artifact()

    return {"kill_executor": kill, "replace_executor": replace, "disconnect_executor": disconnect,
            "corrupt_artifact": corrupt}


SPEC = register_service(ServiceSpec(
    name="openai", build=_build,
    conditions={"agent_working": "some session is in_progress: a turn runs and waits for no one",
                "tool_call_pending": "a function call waits for its result (tool_call_pending:NAME: one of tool NAME)"},
    channels=("webhooks",),
    targets=TARGETS,
    options_schema={
        "sdk_max_retries": {"type": "integer", "minimum": 0, "maximum": 5, "default": 0,
                            "description": "the openai SDK's own retries in the candidate's client (0: retrying is yours)"},
        "webhooks_during_steps": {"type": "boolean", "default": False,
                                  "description": "webhooks arrive before any request of a step, not only between steps"},
    },
))
