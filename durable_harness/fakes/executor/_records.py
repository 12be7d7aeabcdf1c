"""Records of the executor fake: an environment (its sandbox), its processes, the events it reports.

An environment keeps one stable id for its whole life; the sandbox behind it can be replaced
(files and processes gone, ``reset_count`` bumped) without the id changing. Its status is one of
``STATUSES`` (the Agents API's environment states); the terminal ones are ``expired`` and
``failed``. Everything ever done to an environment is kept for the ground truth: the status
history, every command with the ``reset_count`` it ran at, every fault.

Exception tree::

    ValueError
     └── ExecutorError              a misuse of the executor (unknown id, path outside /workspace)
          ├── EnvironmentUnavailable   the sandbox cannot be used in its current status
          └── InvalidTransition        a lifecycle hook not allowed in the current status

What it deliberately does not do: change state (``_executor`` does) or run commands (``_shell``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CommandResult",
    "Environment",
    "EnvironmentUnavailable",
    "ExecutorError",
    "ExecutorEvent",
    "InvalidTransition",
    "Process",
    "Reset",
    "STATUSES",
    "StatusChanged",
    "TERMINAL",
    "WORKSPACE",
]

STATUSES = ("pending", "ready", "connected", "disconnected", "suspended", "expired", "failed")
TERMINAL = frozenset({"expired", "failed"})
WORKSPACE = "/workspace"


class ExecutorError(ValueError):
    """A misuse of the executor; the message names the environment and the value."""


class EnvironmentUnavailable(ExecutorError):
    """The sandbox cannot be used now (not connected, disconnected, expired, failed)."""

    def __init__(self, environment_id: str, status: str, doing: str) -> None:
        hint = {"ready": "attach it to a session first (it becomes connected)",
                "pending": "wait until it is ready",
                "disconnected": "reconnect it inside its reconnect window",
                "suspended": "resume it first"}.get(status, "it cannot be used any more; create a new environment")
        super().__init__(f"cannot {doing}: environment {environment_id!r} is {status}, not connected; {hint}")
        self.environment_id = environment_id
        self.status = status


class InvalidTransition(ExecutorError):
    """A lifecycle hook (kill, replace, disconnect, ...) that the current status does not allow."""


@dataclass
class Process:
    pid: int
    name: str
    command: str
    started_at_s: float
    reset_count: int
    status: str = "running"                 # running | killed | gone (its sandbox was replaced or expired)
    ended_at_s: float | None = None

    def record(self) -> dict[str, Any]:
        return {"pid": self.pid, "name": self.name, "command": self.command, "status": self.status,
                "started_at_s": self.started_at_s, "ended_at_s": self.ended_at_s, "reset_count": self.reset_count}


@dataclass(frozen=True)
class CommandResult:
    """One command run to completion in a sandbox (``seq`` counts commands per environment)."""

    seq: int
    command: str
    cwd: str
    exit_code: int
    output: str
    duration_ms: int
    reset_count: int
    at_s: float

    @property
    def status(self) -> str:
        """The ``command_execution`` item status: a command that ran is completed, whatever its exit code."""
        return "completed"


@dataclass
class Environment:
    id: str
    created_at_s: float
    status: str = "pending"
    reset_count: int = 0
    files: dict[str, bytes] = field(default_factory=dict)          # absolute path -> bytes
    processes: list[Process] = field(default_factory=list)         # every process ever started
    status_history: list[dict[str, Any]] = field(default_factory=list)
    commands: list[dict[str, Any]] = field(default_factory=list)   # every command and upload, for the truth
    faults: list[dict[str, Any]] = field(default_factory=list)
    expires_at_s: float | None = None       # while disconnected: the end of the reconnect window
    window_token: int = 0                   # bumps to invalidate a scheduled expiry

    def running(self) -> list[Process]:
        return [p for p in self.processes if p.status == "running"]


@dataclass(frozen=True)
class StatusChanged:
    """The environment's status changed (``previous`` -> ``status``; None when it was just created)."""

    environment_id: str
    status: str
    previous: str | None
    reset_count: int
    at_s: float


@dataclass(frozen=True)
class Reset:
    """The sandbox was replaced: same id, files and processes gone, ``reset_count`` is the new count."""

    environment_id: str
    reset_count: int
    at_s: float


ExecutorEvent = StatusChanged | Reset
