"""The executor's lifecycle and fault hooks: kill, replace, disconnect/reconnect, the reconnect
window on the virtual clock, expire, fail; the events it reports and its ground truth."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from durable_harness.fakes.executor import (
    EnvironmentUnavailable,
    Executor,
    ExecutorError,
    ExecutorEvent,
    InvalidTransition,
    Reset,
    StatusChanged,
)
from durable_harness.harness._clock import VirtualClock


class Box:
    def __init__(self, window_s: float = 60.0) -> None:
        self.clock = VirtualClock()
        self.ex = Executor(self.clock, random.Random(9), reconnect_window_s=window_s)
        self.events: list[ExecutorEvent] = []
        self.ex.subscribe(self.events.append)
        self.ex.create("env_1", files={"/workspace/data/in.csv": b"a,b\n"})
        self.ex.connect("env_1")
        self.ex.run("env_1", "write src/app.py", content=b"def main():\n    pass\n")
        self.ex.run("env_1", "start worker")

    def statuses(self) -> list[str]:
        return [e.status for e in self.events if isinstance(e, StatusChanged)]


@pytest.fixture
def box() -> Box:
    return Box()


def test_create_goes_pending_ready_and_connect_connects(box: Box) -> None:
    assert box.statuses() == ["pending", "ready", "connected"]
    assert [h["status"] for h in box.ex.truth()["environments"][0]["status_history"]] == ["pending", "ready",
                                                                                         "connected"]
    box.ex.connect("env_1")  # connected stays connected
    assert box.statuses() == ["pending", "ready", "connected"]
    with pytest.raises(ExecutorError, match="already exists"):
        box.ex.create("env_1")
    with pytest.raises(ExecutorError, match="must be absolute and inside /workspace"):
        box.ex.create("env_2", files={"relative.txt": b""})


def test_kill_ends_processes_and_keeps_files(box: Box) -> None:
    assert box.ex.kill("env_1") == 1
    assert box.ex.run("env_1", "ps").output == "PID CMD"
    assert box.ex.run("env_1", "cat src/app.py").exit_code == 0
    env = box.ex.truth()["environments"][0]
    assert [p["status"] for p in env["processes"]] == ["killed"]
    assert env["reset_count"] == 0 and env["faults"][-1]["kind"] == "kill"
    assert box.ex.kill("env_1") == 0


def test_replace_keeps_the_id_empties_the_sandbox_and_counts(box: Box) -> None:
    assert box.ex.replace("env_1") == 1
    assert box.ex.status("env_1") == "connected" and box.ex.reset_count("env_1") == 1
    assert box.ex.list_files("env_1") == {}
    assert box.ex.run("env_1", "ps").output == "PID CMD"
    assert box.statuses()[-2:] == ["pending", "connected"]
    assert [e for e in box.events if isinstance(e, Reset)] == [Reset("env_1", 1, 0.0)]
    assert box.events.index(Reset("env_1", 1, 0.0)) == len(box.events) - 2  # pending, reset, connected
    env = box.ex.truth()["environments"][0]
    assert env["processes"][0]["status"] == "gone" and env["faults"][-1] == {
        "at_s": 0.0, "kind": "replace", "reset_count": 1, "files_lost": 2}
    assert box.ex.replace("env_1") == 2


def test_commands_record_the_reset_count_they_ran_at(box: Box) -> None:
    box.ex.replace("env_1")
    box.ex.run("env_1", "ls")
    commands = box.ex.truth()["environments"][0]["commands"]
    assert [(c["command"], c["reset_count"], c["by"]) for c in commands] == [
        ("write src/app.py", 0, "agent"), ("start worker", 0, "agent"), ("ls", 1, "agent")]
    assert commands[0]["content_sha256"] and commands[0]["size_bytes"] == 21


def test_disconnect_then_reconnect_inside_the_window(box: Box) -> None:
    assert box.ex.disconnect("env_1") == 60.0
    assert box.ex.expires_at("env_1") == 60.0
    with pytest.raises(EnvironmentUnavailable, match="is disconnected.*reconnect it inside"):
        box.ex.run("env_1", "ls")
    box.clock.sleep(59.0)
    box.ex.reconnect("env_1")
    assert box.ex.status("env_1") == "connected" and box.ex.expires_at("env_1") is None
    box.clock.sleep(10.0)  # the old window's timer must not expire a reconnected environment
    assert box.ex.status("env_1") == "connected"
    assert box.ex.run("env_1", "cat src/app.py").exit_code == 0


def test_the_window_closing_expires_the_environment_and_its_files(box: Box) -> None:
    box.ex.disconnect("env_1")
    box.clock.sleep(60.0)
    assert box.ex.status("env_1") == "expired"
    assert box.statuses()[-2:] == ["disconnected", "expired"]
    env = box.ex.truth()["environments"][0]
    assert env["files"] == {} and env["processes"][0]["status"] == "gone"
    assert [f["kind"] for f in env["faults"]] == ["disconnect", "reconnect_window_closed"]
    with pytest.raises(InvalidTransition, match="reconnect.*expired"):
        box.ex.reconnect("env_1")


class _LazyClock:
    """A clock whose timers never fire: only ``reconnect`` itself can notice the window closed."""

    def __init__(self) -> None:
        self.now_s = 0.0

    def now(self) -> float:
        return self.now_s

    def call_later(self, delay_s: float, fire: Callable[[], None]) -> None:
        pass


def test_a_late_reconnect_expires_even_before_the_timer_fired() -> None:
    clock = _LazyClock()
    ex = Executor(clock, random.Random(1), reconnect_window_s=60.0)
    ex.create("env_1")
    ex.connect("env_1")
    ex.disconnect("env_1")
    clock.now_s = 61.0
    with pytest.raises(InvalidTransition, match="expired"):
        ex.reconnect("env_1")
    assert ex.status("env_1") == "expired"


@pytest.mark.parametrize("hook", ["kill", "replace", "disconnect", "reconnect", "expire", "fail"])
def test_hooks_refuse_a_terminal_environment(box: Box, hook: str) -> None:
    box.ex.expire("env_1")
    with pytest.raises(InvalidTransition, match=f"{hook}\\('env_1'\\) is not possible while the environment is "
                                                "expired"):
        getattr(box.ex, hook)("env_1")


def test_replace_and_disconnect_need_a_connection(box: Box) -> None:
    box.ex.disconnect("env_1")
    with pytest.raises(InvalidTransition, match="replace"):
        box.ex.replace("env_1")
    with pytest.raises(InvalidTransition, match="disconnect"):
        box.ex.disconnect("env_1")
    assert box.ex.kill("env_1") == 1  # the sandbox is still there while disconnected


def test_fail_keeps_files_for_the_truth_but_nothing_runs(box: Box) -> None:
    box.ex.fail("env_1")
    assert box.ex.status("env_1") == "failed"
    assert "/workspace/src/app.py" in box.ex.truth()["environments"][0]["files"]
    with pytest.raises(EnvironmentUnavailable, match="is failed"):
        box.ex.read_file("env_1", "/workspace/src/app.py")


def test_uploads_are_logged_as_api_writes(box: Box) -> None:
    assert box.ex.write_file("env_1", "/workspace/up/x.bin", b"\x00\x01") == "/workspace/up/x.bin"
    assert box.ex.list_files("env_1", "/workspace/up") == {"/workspace/up/x.bin": 2}
    last = box.ex.truth()["environments"][0]["commands"][-1]
    assert (last["by"], last["command"], last["size_bytes"]) == ("api", "upload /workspace/up/x.bin", 2)
    with pytest.raises(ExecutorError, match="must be absolute"):
        box.ex.write_file("env_1", "up/x.bin", b"")


def test_truth_is_plain_json_and_deterministic() -> None:
    def history(seed: int) -> str:
        box = Box()
        box.ex = Executor(box.clock, random.Random(seed))
        box.ex.create("e")
        box.ex.connect("e")
        box.ex.run("e", "start a")
        box.ex.run("e", "write f", content=b"x")
        box.ex.replace("e")
        return json.dumps(box.ex.truth(), sort_keys=True)

    assert history(4) == history(4)
    assert json.loads(history(4))["environments"][0]["reset_count"] == 1


def test_mutations_count_every_change(box: Box) -> None:
    before = box.ex.mutations()
    box.ex.kill("env_1")
    box.ex.run("env_1", "ls")
    assert box.ex.mutations() == before + 2


@pytest.mark.parametrize("window", [0, -1, True, "60"])
def test_the_window_must_be_positive(window: object) -> None:
    with pytest.raises(ValueError, match="reconnect_window_s"):
        Executor(VirtualClock(), random.Random(1), reconnect_window_s=window)  # type: ignore[arg-type]


def test_the_rng_must_be_injected() -> None:
    with pytest.raises(TypeError, match="random.Random"):
        Executor(VirtualClock(), 7)  # type: ignore[arg-type]
