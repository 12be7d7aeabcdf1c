"""Property test of the executor's state machine against a tiny model (Hypothesis stateful).

Whatever the sequence of uploads, processes, kills, replacements, disconnects, reconnects, clock
jumps, expiries and failures: ``replace`` always empties the sandbox and bumps ``reset_count`` by
one, ``kill`` never loses a file, ``reset_count`` never decreases, a terminal status is never
left, and the executor's truth agrees with the model at every step.
"""

from __future__ import annotations

import random

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from durable_harness.fakes.executor import STATUSES, EnvironmentUnavailable, Executor, InvalidTransition
from durable_harness.harness._clock import VirtualClock

WINDOW_S = 50.0
ENVS = ("env_a", "env_b")
TERMINAL = ("expired", "failed")
KILLABLE = ("ready", "connected", "disconnected")
paths = st.sampled_from(["/workspace/a.txt", "/workspace/src/b.py", "/workspace/tests/test_b.py", "/workspace/x/y/z"])


class _Model:
    def __init__(self) -> None:
        self.status = "ready"
        self.reset_count = 0
        self.files: dict[str, int] = {}
        self.running = 0
        self.deadline: float | None = None


class ExecutorMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.clock = VirtualClock()
        self.ex = Executor(self.clock, random.Random(0), reconnect_window_s=WINDOW_S)
        self.model: dict[str, _Model] = {}

    @initialize()
    def create(self) -> None:
        for env_id in ENVS:
            self.ex.create(env_id)
            self.model[env_id] = _Model()

    def _expect_refusal(self, env_id: str, allowed: tuple[str, ...], call: str) -> bool:
        """True when the model says ``call`` must be refused (and it was)."""
        if self.model[env_id].status in allowed:
            return False
        try:
            getattr(self.ex, call)(env_id)
        except InvalidTransition:
            return True
        raise AssertionError(f"{call}({env_id}) in status {self.model[env_id].status} was not refused")

    @rule(env_id=st.sampled_from(ENVS))
    def connect(self, env_id: str) -> None:
        if not self._expect_refusal(env_id, ("ready", "connected"), "connect"):
            self.ex.connect(env_id)
            self.model[env_id].status = "connected"

    @rule(env_id=st.sampled_from(ENVS), path=paths, size=st.integers(0, 64))
    def upload(self, env_id: str, path: str, size: int) -> None:
        m = self.model[env_id]
        try:
            self.ex.write_file(env_id, path, b"x" * size)
        except EnvironmentUnavailable:
            assert m.status != "connected"
            return
        assert m.status == "connected"
        m.files[path] = size

    @rule(env_id=st.sampled_from(ENVS))
    def start(self, env_id: str) -> None:
        try:
            self.ex.run(env_id, "start job")
        except EnvironmentUnavailable:
            assert self.model[env_id].status != "connected"
            return
        self.model[env_id].running += 1

    @rule(env_id=st.sampled_from(ENVS))
    def kill(self, env_id: str) -> None:
        if self._expect_refusal(env_id, KILLABLE, "kill"):
            return
        before = self.ex.truth()["environments"][ENVS.index(env_id)]["files"]
        assert self.ex.kill(env_id) == self.model[env_id].running
        assert self.ex.truth()["environments"][ENVS.index(env_id)]["files"] == before  # kill never loses files
        self.model[env_id].running = 0

    @rule(env_id=st.sampled_from(ENVS))
    def replace(self, env_id: str) -> None:
        if self._expect_refusal(env_id, ("ready", "connected"), "replace"):
            return
        m = self.model[env_id]
        assert self.ex.replace(env_id) == m.reset_count + 1
        assert self.ex.status(env_id) == m.status
        m.reset_count += 1
        m.files.clear()
        m.running = 0

    @rule(env_id=st.sampled_from(ENVS))
    def disconnect(self, env_id: str) -> None:
        if not self._expect_refusal(env_id, ("connected",), "disconnect"):
            m = self.model[env_id]
            m.deadline = self.ex.disconnect(env_id)
            assert m.deadline == self.clock.now() + WINDOW_S
            m.status = "disconnected"

    @rule(env_id=st.sampled_from(ENVS))
    def reconnect(self, env_id: str) -> None:
        if not self._expect_refusal(env_id, ("disconnected",), "reconnect"):
            self.ex.reconnect(env_id)
            self.model[env_id].status = "connected"
            self.model[env_id].deadline = None

    @rule(seconds=st.sampled_from([0.0, 1.0, 10.0, 49.0, 50.0, 120.0]))
    def sleep(self, seconds: float) -> None:
        self.clock.sleep(seconds)
        for m in self.model.values():
            if m.status == "disconnected" and m.deadline is not None and self.clock.now() >= m.deadline:
                m.status, m.files, m.running, m.deadline = "expired", {}, 0, None

    @rule(env_id=st.sampled_from(ENVS), ending=st.sampled_from(["expire", "fail"]))
    def end(self, env_id: str, ending: str) -> None:
        if self._expect_refusal(env_id, ("pending", "ready", "connected", "disconnected"), ending):
            return
        getattr(self.ex, ending)(env_id)
        m = self.model[env_id]
        m.status, m.running, m.deadline = ("expired" if ending == "expire" else "failed"), 0, None
        if ending == "expire":
            m.files.clear()

    @invariant()
    def agrees_with_the_model(self) -> None:
        if not self.model:
            return
        for env in self.ex.truth()["environments"]:
            m = self.model[env["id"]]
            assert env["status"] == m.status in STATUSES
            assert env["reset_count"] == m.reset_count
            assert {p: f["size_bytes"] for p, f in env["files"].items()} == m.files
            assert sum(p["status"] == "running" for p in env["processes"]) == m.running
            history = env["status_history"]
            assert history[-1]["status"] == m.status
            counts = [h["reset_count"] for h in history]
            assert counts == sorted(counts)  # reset_count never decreases
            for before, after in zip(history, history[1:]):
                assert before["status"] not in TERMINAL  # a terminal status is never left


TestExecutorMachine = ExecutorMachine.TestCase
TestExecutorMachine.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
