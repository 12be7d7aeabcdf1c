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

__all__ = ["OP_STATES", "OUTCOMES", "Candidate", "CandidateClock", "CandidateCrashed", "CandidateEnv", "CandidateRunaway",
           "ServiceEndpoint"]

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
class ServiceEndpoint:
    """One simulated service as the candidate reaches it: its base URL, its credentials (by name,
    e.g. ``api_key``), and the same facts as the process driver's environment variables."""

    url: str
    credentials: Mapping[str, str]
    variables: Mapping[str, str]

    def __repr__(self) -> str:  # secrets never reach a log through a repr
        return f"ServiceEndpoint(url={self.url!r}, credentials=<{len(self.credentials)} set>)"


@dataclass(frozen=True)
class CandidateEnv:
    """Everything a candidate may use. ``services`` maps a service name (``openai``, ``wordpress``)
    to its endpoint. In-process, the clients are built by the harness and route through the gate;
    the candidate must use them (and ``clock``) rather than make its own."""

    services: Mapping[str, ServiceEndpoint]
    database_url: str
    worker_id: str
    run_id: str
    clock: CandidateClock
    openai: openai.OpenAI
    http: httpx.Client

    # The endpoints' facts by their contract names, for convenience.
    @property
    def openai_base_url(self) -> str:
        return self.services["openai"].url

    @property
    def openai_api_key(self) -> str:
        return self.services["openai"].credentials["api_key"]

    @property
    def openai_webhook_secret(self) -> str:
        return self.services["openai"].credentials["webhook_secret"]

    @property
    def wordpress_url(self) -> str:
        return self.services["wordpress"].url

    @property
    def wordpress_username(self) -> str:
        return self.services["wordpress"].credentials["username"]

    @property
    def wordpress_app_password(self) -> str:
        return self.services["wordpress"].credentials["app_password"]

    @property
    def approvals_url(self) -> str:
        return self.services["approvals"].url

    @property
    def approvals_token(self) -> str:
        return self.services["approvals"].credentials["token"]

    def environ(self) -> dict[str, str]:
        """The same facts as environment variables (the process driver's form)."""
        out: dict[str, str] = {}
        for name in sorted(self.services):
            out.update(self.services[name].variables)
        out.update({"DATABASE_URL": self.database_url, "WORKER_ID": self.worker_id, "HARNESS_RUN_ID": self.run_id})
        return out

    def __repr__(self) -> str:  # secrets never reach a log through a repr
        return f"CandidateEnv(worker_id={self.worker_id!r}, run_id={self.run_id!r}, services={sorted(self.services)!r})"


@runtime_checkable
class Candidate(Protocol):
    """The control API. Every argument and result is plain JSON (dicts, lists, str, numbers)."""

    def submit(self, job: Mapping[str, Any]) -> Mapping[str, Any]: ...
    def cancel(self, job_id: str) -> Mapping[str, Any]: ...
    def report(self, job_id: str) -> Mapping[str, Any]: ...
    def step(self) -> bool: ...
