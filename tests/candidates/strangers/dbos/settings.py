"""The control plane's configuration, read once from the process driver's environment.

The harness starts this process with the contract's variables (the services' URLs and
credentials, ``DATABASE_URL``, ``CANDIDATE_LISTEN``, ``HARNESS_TIME_SCALE``, ...). Time is
compressed: ``scale`` scenario seconds pass per real second, so every wait and every client
timeout below is written in scenario seconds and turned into real seconds with ``real()``.

``RunClock`` keeps the run's own time: every call from the harness carries it in the
``X-Harness-Time`` header (scenario seconds since ``HARNESS_TIME_ORIGIN``); between two calls it
advances ``scale`` times as fast as the monotonic clock. Before the first call (DBOS recovers
pending workflows at launch, before the control API serves) it is ``HARNESS_TIME_START``, the run's
time when this start began, which stands still until the harness's health check.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field

# The lease a worker holds on a job, in scenario seconds (declared in GET /health).
LEASE_TTL_S = 60.0


@dataclass(frozen=True)
class Settings:
    """Everything the process driver tells us, plus the variant switch."""

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
    time_start: float
    buggy: bool
    lease_ttl_s: float = LEASE_TTL_S

    def real(self, scenario_seconds: float) -> float:
        """Real seconds for a span of scenario seconds."""
        return scenario_seconds / self.time_scale

    @property
    def io_timeout(self) -> float:
        """Client timeout in real seconds: 20 scenario seconds, never under half a second."""
        return max(self.real(20.0), 0.5)

    @property
    def sqlalchemy_url(self) -> str:
        """DATABASE_URL with the psycopg (3) driver named, as SQLAlchemy needs it."""
        url = self.database_url
        if url.startswith("postgresql://"):
            return "postgresql+psycopg://" + url[len("postgresql://"):]
        if url.startswith("postgres://"):
            return "postgresql+psycopg://" + url[len("postgres://"):]
        return url


def load_settings(buggy: bool) -> Settings:
    """Read the environment; a missing variable is a start-up error (the harness shows our log)."""
    env = os.environ
    host, _, port = env.get("CANDIDATE_LISTEN", "127.0.0.1:8080").rpartition(":")
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
        database_url=env["DATABASE_URL"],
        worker_id=env.get("WORKER_ID", "worker-1"),
        run_id=env.get("HARNESS_RUN_ID", ""),
        listen_host=host or "127.0.0.1",
        listen_port=int(port),
        time_scale=float(env.get("HARNESS_TIME_SCALE", "10") or 10),
        time_origin=float(env.get("HARNESS_TIME_ORIGIN", "0") or 0),
        time_start=float(env.get("HARNESS_TIME_START", "0") or 0),
        buggy=buggy or env.get("DH_DBOS_BUGGY", "") == "1",
    )


@dataclass
class RunClock:
    """The run's time in scenario seconds, from the X-Harness-Time header of the last call."""

    scale: float
    origin: float
    start: float = 0.0  # the run's time when this start began (HARNESS_TIME_START)
    _base_run_s: float | None = None
    _base_mono: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def observe(self, header: str | None) -> None:
        """Record the run time a harness call carried."""
        if not header:
            return
        try:
            value = float(header)
        except ValueError:
            return
        with self._lock:
            self._base_run_s = value
            self._base_mono = time.monotonic()

    def run_seconds(self) -> float | None:
        """Scenario seconds since the run's second 0, or None before any call was seen."""
        with self._lock:
            if self._base_run_s is None:
                return None
            return self._base_run_s + (time.monotonic() - self._base_mono) * self.scale

    def unix(self) -> float:
        """The run's Unix time (what timestamps on the wire are compared with). Before the first
        call it is the start's (the wall clock would be wrong by every start so far, ``scale`` times
        over: a recovered step once took a listing that lagged for one minutes old)."""
        run_s = self.run_seconds()
        return self.origin + (self.start if run_s is None else run_s)
