"""The world of one run: seed, virtual clock, history, fakes, gate, faults and the job.

It assembles; it does not drive (``_run`` does) and it does not judge (checkers do). Secrets
(the API key, the application password) are drawn from the run's seed, handed to the candidate,
and redacted from everything the run writes.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, cast

import httpx
import openai

from fakes.openai_agents import SessionsFake
from fakes.openai_agents.brains.article import ArticleBrain
from fakes.openai_agents.brains.coding import CodingBrain
from fakes.wordpress import WordPressFake
from harness._clock import VirtualClock
from harness._gate import Gate
from harness._history import History
from harness._webhook_delivery import WebhookDelivery
from harness._seeds import component_random, derive_seed
from harness.candidate import CandidateCrashed, CandidateEnv
from harness.faults import RequestFault, get_fault_kind
from harness.scenario import Scenario
from harness.workloads import build_coding_job, build_job

__all__ = ["CandidateClockView", "World"]

SLEEP_MARGIN_S = 3600.0


class CandidateClockView:
    """The clock as the candidate sees it: ``now``, ``unix`` and ``sleep`` of the run's virtual
    clock, except that sleeping past the run's hard deadline kills the candidate (a candidate that
    waits forever must not hang the harness)."""

    def __init__(self, clock: VirtualClock, hard_deadline_s: float, history: History, process: str) -> None:
        self._clock = clock
        self._hard_deadline_s = hard_deadline_s
        self._history = history
        self._process = process

    def now(self) -> float:
        return self._clock.now()

    def unix(self) -> int:
        return self._clock.unix()

    def sleep(self, seconds: float) -> None:
        if self._clock.now() + seconds > self._hard_deadline_s:
            why = f"slept past the run's hard deadline of {self._hard_deadline_s:g} s (waiting forever?)"
            self._history.append(self._clock.now(), "crash", self._process, {"because": why})
            raise CandidateCrashed(f"{self._process}: {why}")
        self._clock.sleep(seconds)

_WORKLOADS: dict[str, tuple[Callable[[str, str, Mapping[str, Any]], dict[str, Any]], Any]] = {
    "article": (build_job, ArticleBrain),
    "coding": (build_coding_job, CodingBrain),
}

OPENAI_HOST = "openai.dh.test"
WORDPRESS_HOST = "wordpress.dh.test"
APPROVALS_HOST = "approvals.dh.test"


class World:
    def __init__(self, scenario: Scenario, seed: int, workdir: Path) -> None:
        self.scenario = scenario
        self.seed = seed
        self.workdir = workdir
        self.run_id = f"{scenario.id}-{seed}"
        self.clock = VirtualClock()
        self.history = History()
        secrets = component_random(seed, "world.secrets")
        self.api_key = "sk-harness-" + "".join(secrets.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(32))
        self.app_password = " ".join("".join(secrets.choice("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(4)) for _ in range(6))
        self.webhook_secret = "whsec_" + base64.b64encode(secrets.randbytes(32)).decode()
        self.approvals_token = "apr-" + "".join(secrets.choice("0123456789abcdef") for _ in range(24))
        w = scenario.workload
        builder, brain = _WORKLOADS[w.kind]
        self.job: dict[str, Any] = builder(w.job_id, w.task_version, w.params)
        self.wordpress = WordPressFake(self.clock, username="editor", app_password=self.app_password,
                                       auth_mode=scenario.wordpress_auth_mode, site_url=f"http://{WORDPRESS_HOST}")
        self.openai = SessionsFake(
            self.clock, component_random(seed, "fakes.openai_agents"), api_key=self.api_key,
            brains=brain.factory({(w.job_id, w.task_version): self.job}, derive_seed(seed, f"brain.{w.kind}")),
            webhook_secret=self.webhook_secret,
        )
        self.faults: list[RequestFault] = [
            get_fault_kind(f.kind)(i, f.at, f.params) for i, f in enumerate(scenario.faults)
        ]
        self.gate = Gate(self.clock, self.history, [self.openai, self.wordpress], self.faults, effects=self._effects())
        self.webhooks = WebhookDelivery(self.openai, self.clock, self.history, self.faults)
        self.clock.on_jump(self._record_jump)
        self._clients: list[httpx.Client] = []

    @property
    def secrets(self) -> tuple[str, ...]:
        return (self.api_key, self.app_password, self.app_password.replace(" ", ""), self.webhook_secret, self.approvals_token)

    def _record_jump(self, before_s: float, after_s: float) -> None:
        if after_s - before_s >= 60:  # small waits are noise; long jumps explain timelines
            self.history.append(after_s, "clock", "world", {"from_s": round(before_s, 6), "to_s": round(after_s, 6)})

    def database_url(self) -> str:
        return f"sqlite:///{self.workdir / 'candidate.sqlite'}"

    def env(self, worker_id: str) -> CandidateEnv:
        """A fresh environment for one candidate instance: clients routed through the gate."""
        transport = self.gate.transport(worker_id)
        api_http = httpx.Client(transport=transport)
        http = httpx.Client(transport=self.gate.transport(worker_id), timeout=30.0)
        self._clients += [api_http, http]
        client = openai.OpenAI(api_key=self.api_key, base_url=f"http://{OPENAI_HOST}/v1",
                               http_client=cast(Any, api_http),  # legacy httpx is accepted at runtime
                               max_retries=0, webhook_secret=self.webhook_secret)
        return CandidateEnv(
            openai_base_url=f"http://{OPENAI_HOST}/v1", openai_api_key=self.api_key,
            openai_webhook_secret=self.webhook_secret,
            wordpress_url=f"http://{WORDPRESS_HOST}", wordpress_username="editor", wordpress_app_password=self.app_password,
            approvals_url=f"http://{APPROVALS_HOST}", approvals_token=self.approvals_token,
            database_url=self.database_url(), worker_id=worker_id, run_id=self.run_id,
            clock=CandidateClockView(self.clock, self.scenario.expect.deadline_s + SLEEP_MARGIN_S, self.history, worker_id),
            openai=client, http=http,
        )

    def _effects(self) -> dict[str, Callable[[Mapping[str, Any]], dict[str, Any] | None]]:
        """What faults may do to the world besides a request: the executor's fault hooks."""
        executor = self.openai.executor

        def sandbox() -> str | None:
            ids = executor.environment_ids()
            return ids[0] if ids else None

        def kill(params: Mapping[str, Any]) -> dict[str, Any] | None:
            env = sandbox()
            return None if env is None else {"environment_id": env, "processes_killed": executor.kill(env)}

        def replace(params: Mapping[str, Any]) -> dict[str, Any] | None:
            env = sandbox()
            return None if env is None else {"environment_id": env, "reset_count": executor.replace(env)}

        def disconnect(params: Mapping[str, Any]) -> dict[str, Any] | None:
            env = sandbox()
            if env is None:
                return None
            closes_at = executor.disconnect(env)
            after = params.get("reconnect_after_s")
            if after is not None:
                self.clock.call_later(float(after), lambda: executor.reconnect(env))
            return {"environment_id": env, "window_closes_at_s": closes_at, "reconnect_after_s": after}

        return {"kill_executor": kill, "replace_executor": replace, "disconnect_executor": disconnect}

    def truth(self) -> dict[str, Any]:
        return {"wordpress": self.wordpress.truth(), "openai": self.openai.truth()}

    def close(self) -> None:
        for c in self._clients:
            c.close()
        self._clients.clear()
