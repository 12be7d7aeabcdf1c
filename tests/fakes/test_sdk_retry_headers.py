"""What the sessions fake says that the real SDK reads: ``x-request-id`` on every answer (the SDK
keeps it on responses and errors), and ``x-should-retry`` on an injected error, which the SDK obeys
over its own status rules (it retries a 403 told to, and gives up on a 503 told not to)."""

from __future__ import annotations

import httpx
import openai
import pytest
from conftest import OpenAIWorlds

from durable_harness.harness.faults import Trigger, get_fault_kind


def _sdk(world: object, retries: int) -> openai.OpenAI:
    gate = world.gate  # type: ignore[attr-defined]
    return openai.OpenAI(api_key="sk-test-openai", base_url=world.base, max_retries=retries,  # type: ignore[attr-defined]
                         http_client=httpx.Client(transport=gate.transport("sdk")))


def test_every_answer_and_every_error_carries_a_request_id(openai_worlds: OpenAIWorlds) -> None:
    world = openai_worlds()
    page = world.client.beta.agents.sessions.with_raw_response.list()
    assert page.headers["x-request-id"].startswith("req_")
    with pytest.raises(openai.NotFoundError) as missing:
        world.client.beta.agents.sessions.retrieve("sess_missing")
    assert missing.value.request_id is not None and missing.value.request_id.startswith("req_")
    again = world.client.beta.agents.sessions.with_raw_response.list()
    assert again.headers["x-request-id"] != page.headers["x-request-id"]


@pytest.mark.parametrize(("status", "should_retry", "sent"), [(403, True, 2), (503, False, 1), (503, None, 2)])
def test_the_sdk_obeys_x_should_retry_on_an_injected_error(openai_worlds: OpenAIWorlds, status: int,
                                                            should_retry: bool | None, sent: int) -> None:
    params = {"status": status, **({"should_retry": should_retry} if should_retry is not None else {})}
    fault = get_fault_kind("http_error")(0, Trigger("*", "GET", "/agents/sessions"), params)
    world = openai_worlds(faults=[fault])
    client = _sdk(world, retries=1)
    try:
        client.beta.agents.sessions.list()
    except openai.APIStatusError as err:
        assert err.status_code == status and sent == 1
    assert world.gate is not None and world.gate.requests == sent  # the SDK's own attempts, at the gate
    client.close()
