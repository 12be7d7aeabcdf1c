"""The candidate contract in Python: what the in-process driver hands over and expects back.

The process driver speaks the same contract over HTTP (``docs/contract.md``); names and shapes
here are the JSON ones, so a report from either driver is judged the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import httpx
    import openai

__all__ = ["OUTCOMES", "OP_STATES", "Candidate", "CandidateClock", "CandidateCrashed", "CandidateEnv", "CandidateRunaway"]

OUTCOMES = ("running", "completed", "failed", "unknown", "needs_human", "cancelled")
OP_STATES = ("PREPARED", "SENT", "CONFIRMED", "UNKNOWN", "FAILED")


class CandidateCrashed(BaseException):
    """Raised by the gate inside the candidate to kill it at an I/O point.

    A BaseException so that a candidate's ``except Exception`` cannot swallow its own death.
    """


class CandidateRunaway(CandidateCrashed):
    """Raised by the gate when one step makes an unbounded number of requests: the run ends with a
    harness verdict (exit 3) rather than restarting a candidate that would only loop again."""


class CandidateClock(Protocol):
    def now(self) -> float: ...
    def unix(self) -> int: ...
    def sleep(self, seconds: float) -> None: ...


@dataclass(frozen=True)
class CandidateEnv:
    """Everything a candidate may use. In-process, the clients are built by the harness and route
    through the gate; the candidate must use them (and ``clock``) rather than make its own."""

    openai_base_url: str
    openai_api_key: str
    openai_webhook_secret: str
    wordpress_url: str
    wordpress_username: str
    wordpress_app_password: str
    approvals_url: str
    approvals_token: str
    database_url: str
    worker_id: str
    run_id: str
    clock: CandidateClock
    openai: openai.OpenAI
    http: httpx.Client
    tool_aliases: Mapping[str, str] = field(default_factory=dict)

    def environ(self) -> dict[str, str]:
        """The same facts as environment variables (the process driver's form)."""
        return {
            "OPENAI_BASE_URL": self.openai_base_url,
            "OPENAI_API_KEY": self.openai_api_key,
            "OPENAI_WEBHOOK_SECRET": self.openai_webhook_secret,
            "WORDPRESS_URL": self.wordpress_url,
            "WORDPRESS_USERNAME": self.wordpress_username,
            "WORDPRESS_APP_PASSWORD": self.wordpress_app_password,
            "APPROVALS_URL": self.approvals_url,
            "APPROVALS_TOKEN": self.approvals_token,
            "DATABASE_URL": self.database_url,
            "WORKER_ID": self.worker_id,
            "HARNESS_RUN_ID": self.run_id,
        }

    def __repr__(self) -> str:  # secrets never reach a log through a repr
        return f"CandidateEnv(worker_id={self.worker_id!r}, run_id={self.run_id!r}, database_url=<set>)"


@runtime_checkable
class Candidate(Protocol):
    """The control API. Every argument and result is plain JSON (dicts, lists, str, numbers)."""

    def submit(self, job: Mapping[str, Any]) -> Mapping[str, Any]: ...
    def cancel(self, job_id: str) -> Mapping[str, Any]: ...
    def report(self, job_id: str) -> Mapping[str, Any]: ...
    def step(self) -> bool: ...
