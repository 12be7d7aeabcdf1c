"""The agent's hands in its hosted environment: what the turn engine asks of the executor.

* ``snapshot(session)`` / ``artifacts(session)`` - what the brain sees of its environment
  (``{id, type, status, reset_count}``) and the session's live artifacts;
* ``blocked(session)`` - may the agent think now? ``None`` (yes; also for sessions without a
  hosted environment), ``"wait"`` while the environment is disconnected (the turn parks until
  reconnect), or a failure message once it has expired or failed (the turn fails with
  ``sandbox_error``);
* ``perform(session, turn, work)`` - run a ``RunCommand`` in the executor and return its
  ``command_execution`` item (``{command, cwd, exit_code, output, duration_ms, status}``), or
  capture a ``CaptureArtifact`` (no item; the artifact appears in ``step.artifacts``).

A command that cannot run (no hosted environment, the sandbox unavailable) still yields an item,
with ``status: "failed"``, ``exit_code: null`` and the reason as output, as a real agent would
see a tool error. The command's duration does not move the virtual clock.

What it deliberately does not do: change turn or session state (the engine does) or react to
environment events (``_environments`` does).
"""

from __future__ import annotations

import posixpath
from typing import Any

from durable_harness.fakes.executor import WORKSPACE, Executor, ExecutorError
from durable_harness.fakes.openai_agents._artifacts import Artifacts, artifact_object
from durable_harness.fakes.openai_agents._records import IdSource, Session, Turn
from durable_harness.fakes.openai_agents.brains import CaptureArtifact, RunCommand

__all__ = ["Sandbox", "command_execution_item"]


def command_execution_item(item_id: str, turn_id: str, *, command: str, cwd: str | None, exit_code: int | None,
                           output: str | None, duration_ms: int | None, status: str) -> dict[str, Any]:
    return {"id": item_id, "type": "command_execution", "command": command, "cwd": cwd, "exit_code": exit_code,
            "output": output, "duration_ms": duration_ms, "status": status, "turn_id": turn_id}


class Sandbox:
    def __init__(self, ids: IdSource, executor: Executor, artifacts: Artifacts) -> None:
        self._ids = ids
        self._executor = executor
        self._artifacts = artifacts

    def environment_id(self, session: Session) -> str | None:
        """The id of the session's hosted environment, or None (none / self_hosted)."""
        env = session.environment
        env_id = env.get("id")
        if env.get("type") != "openai_hosted" or not isinstance(env_id, str) or not self._executor.has(env_id):
            return None
        return env_id

    def snapshot(self, session: Session) -> dict[str, Any] | None:
        env_id = self.environment_id(session)
        if env_id is None:
            return None
        return {"id": env_id, "type": "openai_hosted", "status": self._executor.status(env_id),
                "reset_count": self._executor.reset_count(env_id)}

    def artifacts(self, session: Session) -> tuple[dict[str, Any], ...]:
        return tuple(artifact_object(a) for a in self._artifacts.live(session.id))

    def blocked(self, session: Session) -> str | None:
        env_id = self.environment_id(session)
        if env_id is None:
            return None
        status = self._executor.status(env_id)
        if status == "disconnected":
            return "wait"
        if status in ("expired", "failed"):
            return (f"The session's environment {env_id!r} has {status}; its sandbox is gone and the turn cannot "
                    "continue. Create a new session (or a new environment) to start over.")
        return None

    def perform(self, session: Session, turn: Turn, work: RunCommand | CaptureArtifact) -> list[dict[str, Any]]:
        env_id = self.environment_id(session)
        if isinstance(work, CaptureArtifact):
            return self._capture(session, turn, env_id, work.path)
        item_id = self._ids.next("item")
        if env_id is None:
            return [command_execution_item(item_id, turn.id, command=work.command, cwd=work.cwd, exit_code=None,
                                           output="no hosted environment: this session's environment type is "
                                                  f"{session.environment.get('type')!r}",
                                           duration_ms=None, status="failed")]
        try:
            result = self._executor.run(env_id, work.command, cwd=work.cwd, content=work.content)
        except ExecutorError as error:
            return [command_execution_item(item_id, turn.id, command=work.command, cwd=work.cwd, exit_code=None,
                                           output=str(error), duration_ms=None, status="failed")]
        return [command_execution_item(item_id, turn.id, command=result.command, cwd=result.cwd,
                                       exit_code=result.exit_code, output=result.output,
                                       duration_ms=result.duration_ms, status=result.status)]

    def _capture(self, session: Session, turn: Turn, env_id: str | None, path: str) -> list[dict[str, Any]]:
        if env_id is None:
            return []
        absolute = posixpath.normpath(posixpath.join(WORKSPACE, path))
        try:
            data = self._executor.read_file(env_id, absolute)
        except ExecutorError:
            return []  # nothing to publish; the brain sees no artifact and says so
        self._artifacts.capture(session_id=session.id, turn_id=turn.id, environment_id=env_id, path=absolute,
                                data=data, reset_count=self._executor.reset_count(env_id))
        return []
