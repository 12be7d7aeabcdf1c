"""``Executor``: the sandboxes behind the Agents API's hosted environments, as a pure state machine.

Each environment has a stable id, a file system (absolute path under ``/workspace`` -> bytes),
processes and a ``reset_count``. Its status moves as the lifecycle hooks say::

    create:     pending -> ready
    connect:    ready -> connected                    (a session attaches it)
    disconnect: connected -> disconnected             (a reconnect window opens)
    reconnect:  disconnected -> connected             (inside the window; else it has expired)
    window:     disconnected -> expired               (the window closed unanswered)
    replace:    ready|connected -> pending -> (reset) -> the same status again
    expire:     any live status -> expired            fail: any live status -> failed

The fault hooks are plain methods the harness's fault kinds call:

* ``kill`` - every running process dies; files stay;
* ``replace`` - a new sandbox under the same id: files and processes gone, ``reset_count += 1``;
* ``disconnect`` / ``reconnect`` - a reconnect window of ``reconnect_window_s`` virtual seconds
  opens; when it closes unanswered the environment ``expired`` (files and processes gone);
* ``expire`` / ``fail`` - end the environment at once.

Commands (``run``) and file operations need the status ``connected``; otherwise they raise
``EnvironmentUnavailable``. Commands run to completion at once (the tiny shell of ``_shell``);
``duration_ms`` and process ids come from the injected ``random.Random``. Listeners registered
with ``subscribe`` hear every ``StatusChanged`` and ``Reset`` as it happens.

What it deliberately does not do: HTTP, sessions or turns (the sessions fake attaches an
environment to a session and reacts to the events), suspension, or read the wall clock.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from durable_harness.fakes.executor._records import (
    WORKSPACE,
    CommandResult,
    Environment,
    EnvironmentUnavailable,
    ExecutorError,
    ExecutorEvent,
    InvalidTransition,
    Process,
    Reset,
    StatusChanged,
)
from durable_harness.fakes.executor._shell import Outcome, execute, resolve

__all__ = ["Clock", "Executor"]

_DURATION_MS = {"shell": (3, 40), "write": (2, 15), "pytest": (350, 1200)}
_MAX_PID_DRAWS = 1000


class Clock(Protocol):
    """What the executor needs of the run's virtual clock (``durable_harness.harness.VirtualClock`` fits)."""

    def now(self) -> float: ...
    def call_later(self, delay_s: float, fire: Callable[[], None]) -> None: ...


class Executor:
    """Sandboxes keyed by stable environment id, with fault hooks and ground truth."""

    def __init__(self, clock: Clock, rng: random.Random, *, reconnect_window_s: float = 300.0) -> None:
        if not isinstance(rng, random.Random):
            raise TypeError(f"rng={rng!r} must be a random.Random derived from the run seed")
        if isinstance(reconnect_window_s, bool) or not isinstance(reconnect_window_s, (int, float)) \
                or reconnect_window_s <= 0:
            raise ValueError(f"reconnect_window_s={reconnect_window_s!r} must be a number of virtual seconds > 0")
        self._clock = clock
        self._rng = rng
        self.reconnect_window_s = float(reconnect_window_s)
        self._environments: dict[str, Environment] = {}
        self._listeners: list[Callable[[ExecutorEvent], None]] = []
        self._mutations = 0

    # -- observation --------------------------------------------------------------------------
    def subscribe(self, listener: Callable[[ExecutorEvent], None]) -> None:
        """Call ``listener(event)`` on every status change and sandbox replacement."""
        self._listeners.append(listener)

    def mutations(self) -> int:
        return self._mutations

    def environment_ids(self) -> list[str]:
        return list(self._environments)

    def has(self, environment_id: str) -> bool:
        return environment_id in self._environments

    def status(self, environment_id: str) -> str:
        return self._get(environment_id).status

    def reset_count(self, environment_id: str) -> int:
        return self._get(environment_id).reset_count

    def expires_at(self, environment_id: str) -> float | None:
        """End of the reconnect window while disconnected, else None."""
        return self._get(environment_id).expires_at_s

    # -- lifecycle ----------------------------------------------------------------------------
    def create(self, environment_id: str, *, files: Mapping[str, bytes] | None = None) -> None:
        """Provision a sandbox (``pending`` then ``ready``) holding ``files`` (absolute paths)."""
        if not isinstance(environment_id, str) or not environment_id:
            raise ExecutorError(f"environment_id={environment_id!r} must be a non-empty string")
        if environment_id in self._environments:
            raise ExecutorError(f"environment {environment_id!r} already exists; ids are stable, create another id")
        initial = {self._path(environment_id, path): bytes(data) for path, data in (files or {}).items()}
        env = Environment(id=environment_id, created_at_s=self._clock.now(), files=initial)
        self._environments[environment_id] = env
        self._history(env)
        self._tell(StatusChanged(env.id, env.status, None, env.reset_count, self._clock.now()))
        self._set_status(env, "ready")

    def connect(self, environment_id: str) -> None:
        """Attach a ``ready`` environment (a session starts using it); connected stays connected."""
        env = self._get(environment_id)
        if env.status == "connected":
            return
        self._require(env, ("ready",), "connect")
        self._set_status(env, "connected")

    # -- the sandbox --------------------------------------------------------------------------
    def run(self, environment_id: str, command: str, *, cwd: str = WORKSPACE, content: bytes | None = None,
            by: str = "agent") -> CommandResult:
        """Run one command to completion; ``content`` is the stdin of ``write <path>``."""
        env = self._usable(environment_id, f"run {command!r}")
        where = resolve(cwd)
        if where is None:
            raise ExecutorError(f"cwd={cwd!r} is outside {WORKSPACE}; commands run inside the workspace")

        def start(name: str, line: str) -> Process:
            return self._start(env, name, line)

        outcome = execute(command, cwd=where, content=content, files=env.files, processes=env.processes,
                          start=start)
        return self._log(env, command, where, outcome, by=by, content=content)

    def write_file(self, environment_id: str, path: str, data: bytes) -> str:
        """Upload ``data`` to ``path`` (absolute, under /workspace); returns the normalised path."""
        env = self._usable(environment_id, f"write {path!r}")
        absolute = self._path(environment_id, path)
        env.files[absolute] = bytes(data)
        self._log(env, f"upload {absolute}", WORKSPACE, Outcome(0, f"wrote {len(data)} bytes to {absolute}",
                                                                 kind="write"), by="api", content=data)
        return absolute

    def read_file(self, environment_id: str, path: str) -> bytes:
        env = self._usable(environment_id, f"read {path!r}")
        absolute = self._path(environment_id, path)
        if absolute not in env.files:
            raise ExecutorError(f"environment {environment_id!r} has no file {absolute!r}")
        return env.files[absolute]

    def list_files(self, environment_id: str, directory: str = WORKSPACE) -> dict[str, int]:
        """Every file below ``directory`` (absolute): path -> size in bytes, sorted by path."""
        env = self._usable(environment_id, f"list {directory!r}")
        prefix = self._path(environment_id, directory).rstrip("/") + "/"
        return {p: len(d) for p, d in sorted(env.files.items()) if p.startswith(prefix)}

    # -- fault hooks --------------------------------------------------------------------------
    def kill(self, environment_id: str) -> int:
        """Every running process dies; files stay. Returns how many died."""
        env = self._get(environment_id)
        self._require(env, ("ready", "connected", "disconnected", "suspended"), "kill")
        killed = self._end_processes(env, "killed")
        self._fault(env, "kill", processes=killed)
        return killed

    def replace(self, environment_id: str) -> int:
        """A new sandbox under the same id: files and processes gone. Returns the new reset_count."""
        env = self._get(environment_id)
        self._require(env, ("ready", "connected"), "replace")
        back = env.status
        self._set_status(env, "pending")
        self._end_processes(env, "gone")
        lost = len(env.files)
        env.files.clear()
        env.reset_count += 1
        self._fault(env, "replace", files_lost=lost)
        self._tell(Reset(env.id, env.reset_count, self._clock.now()))
        self._set_status(env, back)
        return env.reset_count

    def disconnect(self, environment_id: str) -> float:
        """The connection drops; returns the virtual time at which the reconnect window closes."""
        env = self._get(environment_id)
        self._require(env, ("connected",), "disconnect")
        env.window_token += 1
        token = env.window_token
        env.expires_at_s = self._clock.now() + self.reconnect_window_s
        self._fault(env, "disconnect", expires_at_s=env.expires_at_s)
        self._set_status(env, "disconnected")
        self._clock.call_later(self.reconnect_window_s, lambda: self._window_closed(env, token))
        return env.expires_at_s

    def reconnect(self, environment_id: str) -> None:
        """Reconnect inside the window; after it the environment has expired and this raises."""
        env = self._get(environment_id)
        if env.status == "disconnected" and env.expires_at_s is not None and self._clock.now() >= env.expires_at_s:
            self._end(env, "expired")
        self._require(env, ("disconnected",), "reconnect")
        env.window_token += 1
        env.expires_at_s = None
        self._fault(env, "reconnect")
        self._set_status(env, "connected")

    def expire(self, environment_id: str) -> None:
        """The environment and its checkpoint are gone at once: files and processes lost."""
        env = self._get(environment_id)
        self._require(env, ("pending", "ready", "connected", "disconnected", "suspended"), "expire")
        self._fault(env, "expire")
        self._end(env, "expired")

    def fail(self, environment_id: str) -> None:
        """The environment fails: processes die, it can no longer be used (files kept for the truth)."""
        env = self._get(environment_id)
        self._require(env, ("pending", "ready", "connected", "disconnected", "suspended"), "fail")
        self._fault(env, "fail")
        env.window_token += 1
        env.expires_at_s = None
        self._end_processes(env, "gone")
        self._set_status(env, "failed")

    # -- truth --------------------------------------------------------------------------------
    def truth(self) -> dict[str, Any]:
        """Plain JSON, deterministic order: every environment ever created and all done to it."""
        return {"reconnect_window_s": self.reconnect_window_s, "environments": [{
            "id": env.id,
            "status": env.status,
            "reset_count": env.reset_count,
            "created_at_s": env.created_at_s,
            "files": {path: {"sha256": hashlib.sha256(data).hexdigest(), "size_bytes": len(data)}
                      for path, data in sorted(env.files.items())},
            "processes": [p.record() for p in env.processes],
            "status_history": [dict(h) for h in env.status_history],
            "commands": [dict(c) for c in env.commands],
            "faults": [dict(f) for f in env.faults],
        } for env in self._environments.values()]}

    # -- helpers ------------------------------------------------------------------------------
    def _get(self, environment_id: str) -> Environment:
        env = self._environments.get(environment_id)
        if env is None:
            raise ExecutorError(f"no environment {environment_id!r}; known: {sorted(self._environments)!r}")
        return env

    def _path(self, environment_id: str, path: str) -> str:
        absolute = resolve(path) if isinstance(path, str) and path.startswith("/") else None
        if absolute is None:
            raise ExecutorError(f"environment {environment_id!r}: path={path!r} must be absolute and inside "
                                f"{WORKSPACE}, e.g. {WORKSPACE + '/src/app.py'!r}")
        return absolute

    def _usable(self, environment_id: str, doing: str) -> Environment:
        env = self._get(environment_id)
        if env.status != "connected":
            raise EnvironmentUnavailable(environment_id, env.status, doing)
        return env

    def _require(self, env: Environment, allowed: tuple[str, ...], hook: str) -> None:
        if env.status not in allowed:
            raise InvalidTransition(f"{hook}({env.id!r}) is not possible while the environment is {env.status}; "
                                    f"it needs one of {list(allowed)!r}")

    def _history(self, env: Environment) -> None:
        env.status_history.append({"at_s": self._clock.now(), "status": env.status, "reset_count": env.reset_count})
        self._mutations += 1

    def _set_status(self, env: Environment, status: str) -> None:
        previous, env.status = env.status, status
        self._history(env)
        self._tell(StatusChanged(env.id, status, previous, env.reset_count, self._clock.now()))

    def _end(self, env: Environment, status: str) -> None:
        env.window_token += 1
        env.expires_at_s = None
        self._end_processes(env, "gone")
        env.files.clear()
        self._set_status(env, status)

    def _window_closed(self, env: Environment, token: int) -> None:
        if token == env.window_token and env.status == "disconnected":
            self._fault(env, "reconnect_window_closed")
            self._end(env, "expired")

    def _end_processes(self, env: Environment, status: str) -> int:
        ended = env.running()
        for process in ended:
            process.status = status
            process.ended_at_s = self._clock.now()
        return len(ended)

    def _start(self, env: Environment, name: str, line: str) -> Process:
        used = {p.pid for p in env.processes}
        for _ in range(_MAX_PID_DRAWS):
            pid = self._rng.randint(1000, 32767)
            if pid not in used:
                break
        else:  # pragma: no cover - 1000 collisions among < 32k pids
            raise ExecutorError(f"environment {env.id!r}: no free process id")
        process = Process(pid=pid, name=name, command=line, started_at_s=self._clock.now(),
                          reset_count=env.reset_count)
        env.processes.append(process)
        return process

    def _log(self, env: Environment, command: str, cwd: str, outcome: Outcome, *, by: str,
             content: bytes | None) -> CommandResult:
        low, high = _DURATION_MS[outcome.kind]
        result = CommandResult(seq=len(env.commands) + 1, command=command, cwd=cwd, exit_code=outcome.exit_code,
                               output=outcome.output, duration_ms=self._rng.randint(low, high),
                               reset_count=env.reset_count, at_s=self._clock.now())
        entry: dict[str, Any] = {"seq": result.seq, "at_s": result.at_s, "by": by, "command": command, "cwd": cwd,
                                 "exit_code": result.exit_code, "output": result.output,
                                 "duration_ms": result.duration_ms, "reset_count": result.reset_count}
        if outcome.kind == "write":
            data = content or b""
            entry.update(content_sha256=hashlib.sha256(data).hexdigest(), size_bytes=len(data))
        env.commands.append(entry)
        self._mutations += 1
        return result

    def _fault(self, env: Environment, kind: str, **details: Any) -> None:
        env.faults.append({"at_s": self._clock.now(), "kind": kind, "reset_count": env.reset_count, **details})
        self._mutations += 1

    def _tell(self, event: ExecutorEvent) -> None:
        for listener in list(self._listeners):
            listener(event)
