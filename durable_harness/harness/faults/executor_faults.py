"""Faults on the sandbox executor, fired at a request of the candidate (before it is delivered):

* ``kill_executor``: the processes in the sandbox die; its files stay.
* ``replace_executor``: the sandbox is replaced: same environment id, files and processes gone,
  ``reset_count`` + 1, an ``agent.session.environment.reset`` event.
* ``disconnect_executor``: the environment disconnects (the session shows an
  ``environment_connection`` required action); it reconnects ``reconnect_after_s`` later, or,
  without it, expires when the reconnect window closes.

* ``corrupt_artifact``: the newest session artifact keeps its size, but its bytes change: a
  check by size passes, a check by digest does not.

A fault that finds no sandbox (or artifact) to act on does not count as fired (the run is then unknown).
"""

from __future__ import annotations

from durable_harness.harness.faults._base import Action, Effect, FaultContext
from durable_harness.harness.faults._registry import fault_kind
from durable_harness.harness.faults._request_fault import RequestFault

__all__ = ["CorruptArtifact", "DisconnectExecutor", "KillExecutor", "ReplaceExecutor"]


@fault_kind("kill_executor")
class KillExecutor(RequestFault):
    workloads = ("coding",)  # the sandbox: no other workload has one
    def action(self, ctx: FaultContext) -> Action:
        return Effect("kill_executor")


@fault_kind("replace_executor")
class ReplaceExecutor(RequestFault):
    workloads = ("coding",)  # the sandbox: no other workload has one
    def action(self, ctx: FaultContext) -> Action:
        return Effect("replace_executor")


@fault_kind("corrupt_artifact")
class CorruptArtifact(RequestFault):
    workloads = ("coding",)  # the sandbox: no other workload has one
    """The newest session artifact keeps its size, its bytes change (storage corruption)."""

    def action(self, ctx: FaultContext) -> Action:
        return Effect("corrupt_artifact")


@fault_kind("disconnect_executor")
class DisconnectExecutor(RequestFault):
    workloads = ("coding",)  # the sandbox: no other workload has one
    params_schema = {"reconnect_after_s": {"type": "number", "minimum": 0}}

    def action(self, ctx: FaultContext) -> Action:
        return Effect("disconnect_executor", self.params)
