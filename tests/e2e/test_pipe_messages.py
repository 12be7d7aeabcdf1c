"""Fewer wake-ups on the pipe between the harness and an instance: each message wakes the process on
the other side. An instance knows what the SDK's clock says from the harness's last message (time
moves only while the harness runs), so verifying a webhook asks nothing; a message that needs no
answer (a stream closed) goes with the instance's next message, in one write, and is read first.
Ground truth: the messages the harness reads from its instances, and the bytes on the pipe. That
the runs are the in-process runs byte for byte is ``test_containment``'s."""

from __future__ import annotations

import collections
import select
import socket
from pathlib import Path
from typing import Any

import pytest

from durable_harness.harness._run import run_once
from durable_harness.harness.drivers import _forked_driver as _forked
from durable_harness.harness.isolation import _child
from durable_harness.harness.isolation._pipe import InstanceKind, ZygoteKind, frame, recv
from durable_harness.harness.scenario import load_scenario

pytestmark = pytest.mark.e2e  # end-to-end runs: `make test` runs them (`pytest -m e2e` alone)

SCENARIOS = Path(__file__).parents[2] / "durable_harness" / "scenarios"


def test_verifying_a_webhook_asks_the_harness_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    heard: collections.Counter[str] = collections.Counter()
    read = _forked.recv

    def counted(sock: socket.socket, timeout_s: float | None = None) -> tuple[dict[str, Any], bytes]:
        message, data = read(sock, timeout_s)
        heard[message["k"]] += 1
        return message, data

    monkeypatch.setattr(_forked, "recv", counted)
    calls = collections.Counter[str]()
    call = _forked._Child.call

    def noted(self: Any, method: str, *args: Any) -> Any:
        calls[method] += 1
        return call(self, method, *args)

    monkeypatch.setattr(_forked._Child, "call", noted)
    doc, _ = run_once(load_scenario(SCENARIOS / "forged-webhook-mid-step.yaml"), "reference")
    assert (doc["verdict"], doc["error"]) == ("pass", None), doc["reproduce"]
    assert calls["receive_webhook"] >= 5  # each verified with the SDK, on the run's clock
    assert heard[InstanceKind.SDK_CLOCK] == 0, heard
    assert heard[InstanceKind.REQUEST] > 0 and heard[InstanceKind.STREAM_CLOSED] > 0


def test_the_sdks_time_is_what_the_harness_last_said_or_asked_for() -> None:
    ours, theirs = socket.socketpair()
    try:
        link = _child._Link(ours)
        sdk = _child._PipeSdkTime(link, "webhooks")
        link._heard({"k": InstanceKind.CALL, "t": [12.5, 1_700_000_012], "st": {"webhooks": 1_700_000_012.0}})
        assert sdk.time() == 1_700_000_012.0
        assert select.select([theirs], [], [], 0)[0] == []  # asked nothing
        link._heard({"k": InstanceKind.CALL, "t": [13.0, 1_700_000_013]})  # the scenario's SDK is on the wall clock now
        assert link.sdk_times == {}
    finally:
        ours.close()
        theirs.close()


def test_a_message_that_needs_no_answer_goes_with_the_next_in_one_write() -> None:
    ours, theirs = socket.socketpair()
    try:
        link = _child._Link(ours)
        link.notify({"k": InstanceKind.STREAM_CLOSED, "s": 3})
        assert select.select([theirs], [], [], 0)[0] == []  # nobody woken for it alone
        link.send({"k": InstanceKind.RESULT, "v": None})
        assert [recv(theirs, 1.0)[0]["k"] for _ in range(2)] == [InstanceKind.STREAM_CLOSED, InstanceKind.RESULT]
        assert select.select([theirs], [], [], 0)[0] == []
    finally:
        ours.close()
        theirs.close()



def test_a_kind_goes_on_the_pipe_as_the_bare_string_it_names() -> None:
    for kind in [*InstanceKind, *ZygoteKind]:
        assert frame({"k": kind, "v": [kind]}) == frame({"k": kind.value, "v": [kind.value]}), kind
