"""The world of one run: seed, virtual clock, history, fakes, gate, faults and the job.

It assembles; it does not drive (``_run`` does) and it does not judge (checkers do). Secrets
(the API key, the application password) are drawn from the run's seed, handed to the candidate,
and redacted from everything the run writes.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, cast

import httpx
import openai

from fakes.openai_agents import SessionsFake
from fakes.openai_agents.brains.article import ArticleBrain
from fakes.wordpress import WordPressFake
from harness._clock import VirtualClock
from harness._gate import Gate
from harness._history import History
from harness._webhook_delivery import WebhookDelivery
from harness._seeds import component_random, derive_seed
from harness.candidate import CandidateEnv
from harness.faults import RequestFault, get_fault_kind
from harness.scenario import Scenario
from harness.workloads import build_job

__all__ = ["World"]

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
        self.job: dict[str, Any] = build_job(w.job_id, w.task_version, w.params)
        self.wordpress = WordPressFake(self.clock, username="editor", app_password=self.app_password,
                                       auth_mode=scenario.wordpress_auth_mode, site_url=f"http://{WORDPRESS_HOST}")
        self.openai = SessionsFake(
            self.clock, component_random(seed, "fakes.openai_agents"), api_key=self.api_key,
            brains=ArticleBrain.factory({(w.job_id, w.task_version): self.job}, derive_seed(seed, "brain.article")),
            webhook_secret=self.webhook_secret,
        )
        self.faults: list[RequestFault] = [
            get_fault_kind(f.kind)(i, f.at, f.params) for i, f in enumerate(scenario.faults)
        ]
        self.gate = Gate(self.clock, self.history, [self.openai, self.wordpress], self.faults)
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
            clock=self.clock, openai=client, http=http,
        )

    def truth(self) -> dict[str, Any]:
        return {"wordpress": self.wordpress.truth(), "openai": self.openai.truth()}

    def close(self) -> None:
        for c in self._clients:
            c.close()
        self._clients.clear()
