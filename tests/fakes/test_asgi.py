"""The generic ASGI adapter over real loopback HTTP: any fake (here the fake WordPress) served by
uvicorn behaves as through the gate, and a stream whose client goes away is closed server-side."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import httpx
import pytest

from durable_harness.fakes import asgi_app
from durable_harness.fakes.wordpress import WordPressFake
from durable_harness.harness._clock import VirtualClock

if TYPE_CHECKING:
    from conftest import Loopback, OpenAIWorlds

AUTH = ("editor", "abcd EFGH ijkl MNOP qrst UVWX")
PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde"
       b"\x00\x00\x00\x00IEND\xaeB`\x82")


def test_any_fake_is_served_unchanged(loopback: Loopback) -> None:
    fake = WordPressFake(VirtualClock())
    origin = loopback.mount(fake)
    try:
        with httpx.Client(base_url=origin + "/wp-json", auth=AUTH, timeout=10) as site:
            created = site.post("/wp/v2/posts", json={"title": "Over the wire"}, params={"context": "edit"})
            assert created.status_code == 201 and created.json()["title"]["raw"] == "Over the wire"
            listed = site.get("/wp/v2/posts", params={"status": "draft"})
            assert [p["id"] for p in listed.json()] == [created.json()["id"]]
            assert (listed.headers["x-wp-total"], listed.headers["x-wp-totalpages"]) == ("1", "1")
            upload = site.post("/wp/v2/media", files={"file": ("a.png", PNG, "image/png")},
                               data={"alt_text": "alt"})
            assert upload.status_code == 201 and upload.json()["alt_text"] == "alt"
            assert site.get("/wp/v2/nothing").status_code == 404
        assert [p["title"] for p in fake.truth()["posts"]] == ["Over the wire"]
        assert fake.mutations() == 2
    finally:
        loopback.unmount(origin)


def test_the_adapter_refuses_what_is_not_a_fake() -> None:
    with pytest.raises(TypeError, match="handle"):
        asgi_app(object())  # type: ignore[arg-type]


def test_a_stream_whose_client_leaves_is_closed_and_others_are_served(openai_worlds: OpenAIWorlds) -> None:
    world = openai_worlds(transport="loopback", idle_close_s=1e9)  # would otherwise run for a long while
    session_id = world.client.beta.agents.sessions.create(environment={"type": "none"}, agent={"model": "gpt-5"},
                                                          input="Write the article.").id
    url = f"{world.base}/agents/sessions/{session_id}/events"
    headers = {"Authorization": "Bearer sk-test-openai", "OpenAI-Beta": "agents=v1"}
    with world.http.stream("GET", url, headers=headers) as response:
        # Keep the iterator: a dropped one is closed at once, and closing it closes the connection.
        chunks = response.iter_raw()
        assert next(chunks).startswith(b"event: agent.session.in_progress\n")
        assert world.fake.open_streams() == 1
        # The stream yields to the server loop between steps: other requests go through meanwhile.
        assert world.client.beta.agents.sessions.retrieve(session_id).id == session_id
    waited = threading.Event()
    for _ in range(500):  # at most 5 s of wall time
        if world.fake.open_streams() == 0:
            break
        waited.wait(0.01)
    assert world.fake.open_streams() == 0
