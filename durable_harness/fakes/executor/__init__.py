"""The simulated sandbox executor behind the Agents API's hosted environments.

``Executor(clock, rng, *, reconnect_window_s=300.0)`` is a pure synchronous state machine:
environments keyed by a stable id, each with a file system, processes, a ``reset_count`` and a
status (``pending|ready|connected|disconnected|suspended|expired|failed``). Commands of a tiny
deterministic shell run to completion at once (``write``, ``cat``, ``ls``, ``sha256sum``,
``python -m pytest`` by a documented rule, ``start``/``ps``). Fault hooks are plain methods:
``kill``, ``replace``, ``disconnect``/``reconnect`` (with a reconnect window on the virtual clock),
``expire``, ``fail``. ``Executor.truth()`` is the ground truth::

    {"reconnect_window_s": float,
     "environments": [{id, status, reset_count, created_at_s,
                       files: {path: {sha256, size_bytes}},
                       processes: [{pid, name, command, status, started_at_s, ended_at_s, reset_count}],
                       status_history: [{at_s, status, reset_count}],
                       commands: [{seq, at_s, by, command, cwd, exit_code, output, duration_ms, reset_count,
                                   content_sha256?, size_bytes?}],
                       faults: [{at_s, kind, reset_count, ...}]}]}

What it deliberately does not do: HTTP (the sessions fake serves the environments API), run real
programs, or read the wall clock or the global random.
"""

from durable_harness.fakes.executor._executor import Clock, Executor
from durable_harness.fakes.executor._records import (
    STATUSES,
    WORKSPACE,
    CommandResult,
    EnvironmentUnavailable,
    ExecutorError,
    ExecutorEvent,
    InvalidTransition,
    Reset,
    StatusChanged,
)

__all__ = [
    "Clock",
    "CommandResult",
    "EnvironmentUnavailable",
    "Executor",
    "ExecutorError",
    "ExecutorEvent",
    "InvalidTransition",
    "Reset",
    "STATUSES",
    "StatusChanged",
    "WORKSPACE",
]
