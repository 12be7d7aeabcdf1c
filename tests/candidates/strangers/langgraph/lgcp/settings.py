"""The process's settings (the contract's environment variables) and the run's clock.

Time in a harness run is compressed (`HARNESS_TIME_SCALE` scenario seconds per real second) and
stands still while a process starts, so the clock here is taken from the `X-Harness-Time` header
of every call the harness makes, and extrapolated between calls at the run's scale. Every wait,
timeout, lease and backoff of the control plane is written in scenario seconds and converted here.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Settings:
    """What the harness tells the process through its environment."""

    openai_base_url: str
    openai_api_key: str
    openai_webhook_secret: str
    openai_max_retries: int
    wordpress_url: str
    wordpress_username: str
    wordpress_app_password: str
    approvals_url: str
    approvals_token: str
    database_url: str
    worker_id: str
    run_id: str
    listen_host: str
    listen_port: int
    time_scale: float
    time_origin: float
    buggy: bool = False
    incarnation: str = field(default="")

    @staticmethod
    def from_env(buggy: bool) -> "Settings":
        env = os.environ
        host, _, port = env.get("CANDIDATE_LISTEN", "127.0.0.1:8080").rpartition(":")
        worker = env.get("WORKER_ID", "worker-1")
        return Settings(
            openai_base_url=env["OPENAI_BASE_URL"],
            openai_api_key=env["OPENAI_API_KEY"],
            openai_webhook_secret=env.get("OPENAI_WEBHOOK_SECRET", ""),
            openai_max_retries=int(env.get("OPENAI_MAX_RETRIES", "0") or 0),
            wordpress_url=env["WORDPRESS_URL"].rstrip("/"),
            wordpress_username=env["WORDPRESS_USERNAME"],
            wordpress_app_password=env["WORDPRESS_APP_PASSWORD"],
            approvals_url=env["APPROVALS_URL"].rstrip("/"),
            approvals_token=env["APPROVALS_TOKEN"],
            database_url=libpq_url(env["DATABASE_URL"]),
            worker_id=worker,
            run_id=env.get("HARNESS_RUN_ID", ""),
            listen_host=host or "127.0.0.1",
            listen_port=int(port),
            time_scale=float(env.get("HARNESS_TIME_SCALE", "10") or 10),
            time_origin=float(env.get("HARNESS_TIME_ORIGIN", "0") or 0),
            buggy=buggy,
            incarnation=f"{worker}/{os.getpid()}/{time.time_ns()}",
        )


def libpq_url(url: str) -> str:
    """A SQLAlchemy URL (`postgresql+psycopg://…`) as libpq takes it (`postgresql://…`)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    return scheme.split("+", 1)[0] + "://" + rest


class Clock:
    """The run's time in scenario seconds, from the harness's `X-Harness-Time` headers."""

    def __init__(self, scale: float, origin: float) -> None:
        self.scale = scale if scale > 0 else 1.0
        self.origin = origin
        self._lock = threading.Lock()
        self._base: float | None = None
        self._mono = time.monotonic()
        self.known = threading.Event()

    def observe(self, header: str | None) -> None:
        """Take the run's time from a call of the harness."""
        if not header:
            return
        try:
            value = float(header)
        except ValueError:
            return
        with self._lock:
            self._base = value
            self._mono = time.monotonic()
        self.known.set()

    def now(self) -> float:
        """Scenario seconds since the run began (extrapolated since the last header)."""
        with self._lock:
            base, mono = self._base, self._mono
        if base is None:
            return 0.0
        return base + (time.monotonic() - mono) * self.scale

    def unix(self) -> float:
        """The run's time as the services stamp it (`HARNESS_TIME_ORIGIN` + run time)."""
        return self.origin + self.now()

    def real(self, scenario_seconds: float) -> float:
        """Real seconds for a span of scenario seconds."""
        return max(0.0, scenario_seconds) / self.scale

    def sleep(self, scenario_seconds: float) -> None:
        time.sleep(self.real(scenario_seconds))

    def timeout(self, scenario_seconds: float, floor_real: float = 1.5) -> float:
        """A client timeout in real seconds, never below a small real floor."""
        return max(floor_real, self.real(scenario_seconds))
