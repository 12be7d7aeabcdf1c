"""``SessionsFake``: the simulated OpenAI Agents sessions API as the gate sees it (a ``Service``).

It checks what every request needs before routing: ``Authorization: Bearer <key>`` (401
``invalid_api_key`` when missing, wrong or revoked) and, on ``/agents`` paths, the header
``OpenAI-Beta: agents=v1`` (400 when absent). Then the routes drive the state machine. Keys are
known to the history only by label (``api-key#1``, ``api-key#1 (revoked)``, ``unknown-key``).

Hosted environments are sandboxes of an ``Executor`` (``executor=``, by default one derived from
``rng``; ``SessionsFake.executor`` exposes its fault hooks). Streams are served by
``_sse.EventStreams`` (``idle_close_s`` bounds a silent stream); webhooks are signed into a
``_webhooks.WebhookOutbox`` that the World drains with ``webhook_outbox()``.

What it deliberately does not do: deliver webhooks (the World does), fault injection (the gate's
faults do that), or read the wall clock or the global random.
"""

from __future__ import annotations

import base64
import dataclasses
import hmac
import random
from collections.abc import Callable, Mapping
from typing import Any

from durable_harness.wire import Request, Response
from durable_harness.fakes.executor import Executor
from durable_harness.fakes.openai_agents._errors import ApiError, bad_request, invalid_api_key, missing_api_key
from durable_harness.fakes.openai_agents._routes import build_router
from durable_harness.fakes.openai_agents._sse import EventStreams, StreamClock, derived_random
from durable_harness.fakes.openai_agents._state import SessionsState
from durable_harness.fakes.openai_agents._webhooks import Webhook, WebhookOutbox, WebhookSigner
from durable_harness.fakes.openai_agents.brains import BrainFactory

__all__ = ["SessionsFake"]

BETA_HEADER = "agents=v1"


@dataclasses.dataclass
class _Key:
    secret: str
    label: str
    revoked: bool = False


class SessionsFake:
    """The Agents sessions API: ``base_url = http://openai.dh.test/v1``."""

    name = "openai"
    host = "openai.dh.test"
    root = "/v1"

    def __init__(self, clock: StreamClock, rng: random.Random, *, api_key: str, brains: BrainFactory,
                 think_s: float = 1.5, idle_close_s: float = 300.0, webhook_secret: str | None = None,
                 executor: Executor | None = None) -> None:
        if not isinstance(rng, random.Random):
            raise TypeError(f"rng={rng!r} must be a random.Random derived from the run seed")
        if not callable(brains):
            raise TypeError(f"brains={brains!r} must be a BrainFactory: (metadata, first_input_text) -> Brain")
        self._keys: list[_Key] = []
        self._requests = 0  # answers given: the counter behind x-request-id
        self.add_api_key(api_key)
        self._state = SessionsState(clock, rng, brains, think_s, executor)
        self._streams = EventStreams(self._state, clock, derived_random(rng, "sse"), idle_close_s=idle_close_s)
        if webhook_secret is None:
            webhook_secret = "whsec_" + base64.b64encode(derived_random(rng, "webhooks").randbytes(32)).decode()
        self.webhook_secret = webhook_secret  # the candidate verifies deliveries with it
        self._webhooks = WebhookOutbox(WebhookSigner(webhook_secret), clock)
        self._state.subscribe(self._webhooks.on_event)
        self._router = build_router(self._state, self.root, streams=self._streams)

    # -- Service ------------------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        path = request.path
        if path != self.root and not path.startswith(self.root + "/"):
            return ApiError(404, f"Invalid URL ({request.method} {path})").response()
        inner = dataclasses.replace(request, path=path[len(self.root):] or "/")
        try:
            self._authenticate(request)
            if inner.path.startswith("/agents"):
                _require_beta(request)
            response = self._router.dispatch(inner)
        except ApiError as error:
            response = error.response()
        return self._with_request_id(response)

    def _with_request_id(self, response: Response) -> Response:
        """Every answer names its request, as the API's do (``x-request-id: req_…``): the SDK keeps it
        on the response (``_request_id``) and on its errors (``request_id``). From a counter: the
        same run gives the same ids."""
        self._requests += 1
        return dataclasses.replace(response, headers={**response.headers, "x-request-id": f"req_{self._requests:032x}"})

    def mutations(self) -> int:
        return self._state.mutations()

    def credential(self, request: Request) -> str | None:
        secret = _bearer(request)
        if secret is None:
            return None
        key = self._find(secret)
        if key is None:
            return "unknown-key"
        return f"{key.label} (revoked)" if key.revoked else key.label

    # -- keys ---------------------------------------------------------------------------------
    def add_api_key(self, api_key: str) -> str:
        """Accept another key from now on; returns its label (``api-key#<n>``)."""
        if not isinstance(api_key, str) or not api_key.strip():
            raise ValueError("api_key must be a non-empty string (it is never recorded, only its label)")
        known = self._find(api_key)
        if known is not None:
            raise ValueError(f"that api_key is already known as {known.label!r}")
        key = _Key(api_key, f"api-key#{len(self._keys) + 1}")
        self._keys.append(key)
        return key.label

    def revoke_api_key(self, label: str | None = None) -> None:
        """Revoke the key with ``label``, or every key when None: later requests with it get 401."""
        matched = [k for k in self._keys if label is None or k.label == label]
        if not matched:
            raise ValueError(f"revoke_api_key(label={label!r}): no such key; known: {[k.label for k in self._keys]!r}")
        for key in matched:
            key.revoked = True

    # -- harness side -------------------------------------------------------------------------
    def next_wakeup(self) -> float | None:
        """Virtual time at which some agent next finishes thinking, or None when none is thinking."""
        return self._state.next_wakeup()

    def corrupt_latest_artifact(self) -> dict[str, Any] | None:
        """Fault hook: the newest artifact keeps its size, its bytes change (storage corruption)."""
        return self._state.artifacts.corrupt_latest()

    def call_record(self, call_id: str) -> Mapping[str, Any] | None:
        """What ground truth knows of a function call ever issued (tool ``name``, ``role``), or None:
        the harness names a tool result by the tool it answers (``tool_result:wp_create_draft``)."""
        return self._state.call_record(call_id)

    def payload_owner(self, sha256: str) -> Mapping[str, Any] | None:
        """Whose business payload these bytes are (``job_id``, ``task_version``, ``role``), or None."""
        return self._state.payload_owner(sha256)

    def hold_thoughts(self, keep_thinking: Callable[[], bool] | None,
                      slow: Callable[[], float | None] | None = None) -> None:
        """Fault hooks: when a thought falls due and ``keep_thinking()`` is true, the agent works one
        thinking time more (a bounded number of times a thought); while ``slow()`` gives a number of
        seconds, every thought lasts as many thinking times as fit in it."""
        self._state.hold_thoughts(keep_thinking, slow)

    def agent_working(self) -> bool:
        """Whether some agent is working right now (a session ``in_progress``): a turn is running
        and is not waiting for anyone. Fault triggers use it (``while: agent_working``)."""
        return any(s.status == "in_progress" for s in self._state.sessions())

    def pending_tool_calls(self) -> list[str]:
        """The tool names of every function call waiting for its result, in all live sessions."""
        return [str(a.get("name")) for s in self._state.sessions() for a in s.required_actions()
                if a.get("type") == "function_call"]

    def truth(self) -> dict[str, Any]:
        """Ground truth as plain JSON in a deterministic order (shape: the package docstring)."""
        return {**self._state.truth(), "webhooks": self._webhooks.truth()}

    @property
    def executor(self) -> Executor:
        """The sandboxes behind hosted environments; its fault hooks are ``kill``, ``replace``,
        ``disconnect``/``reconnect``, ``expire`` and ``fail``."""
        return self._state.executor

    def environment_id(self, session_id: str) -> str | None:
        """The id of the session's hosted environment (deleted sessions too), or None."""
        for record in self._state.environments.all():
            if record.session_id == session_id:
                return record.id
        return None

    def append_legacy_user_message(self, session_id: str, text: str) -> None:
        """Add a user message with a null id to the session's latest turn (legacy-session scenarios)."""
        self._state.append_legacy_user_message(session_id, text)

    def subscribe(self, listener: Callable[[str, Mapping[str, Any]], None]) -> None:
        """Observe lifecycle events (stream event type, data) as they happen."""
        self._state.subscribe(listener)

    def open_streams(self) -> int:
        """How many SSE streams are subscribed right now (read or not yet read)."""
        return self._streams.open_streams()

    def webhook_outbox(self) -> list[Webhook]:
        """Take the webhook deliveries not yet taken, oldest first (forged ones included)."""
        return self._webhooks.take()

    def forge_webhook(self, kind: str, *, like: Webhook | None = None, event_type: str | None = None) -> Webhook:
        """Queue a forged delivery (``bad_signature``, ``stale_timestamp`` or ``replay``) and return it."""
        return self._webhooks.forge(kind, like=like, event_type=event_type)

    # -- helpers ------------------------------------------------------------------------------
    def _find(self, secret: str) -> _Key | None:
        for key in self._keys:
            if hmac.compare_digest(key.secret.encode(), secret.encode()):
                return key
        return None

    def _authenticate(self, request: Request) -> None:
        secret = _bearer(request)
        if secret is None:
            raise missing_api_key()
        key = self._find(secret)
        if key is None or key.revoked:
            raise invalid_api_key()


def _bearer(request: Request) -> str | None:
    header = request.header("authorization")
    if not header:
        return None
    scheme, _, secret = header.partition(" ")
    return secret.strip() or None if scheme.lower() == "bearer" else None


def _require_beta(request: Request) -> None:
    values = [part.strip() for part in (request.header("openai-beta") or "").split(",")]
    if BETA_HEADER not in values:
        raise bad_request(f"This endpoint is in beta: send the header 'OpenAI-Beta: {BETA_HEADER}' (got "
                          f"{request.header('openai-beta')!r}). The openai SDK's client.beta.agents sends it.",
                          code="missing_beta_header")
