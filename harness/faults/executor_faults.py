"""Faults on the sandbox executor, fired at a request of the candidate (before it is delivered):

* ``kill_executor``: the processes in the sandbox die; its files stay.
* ``replace_executor``: the sandbox is replaced: same environment id, files and processes gone,
  ``reset_count`` + 1, an ``agent.session.environment.reset`` event.
* ``disconnect_executor``: the environment disconnects (the session shows an
  ``environment_connection`` required action); it reconnects ``reconnect_after_s`` later, or,
  without it, expires when the reconnect window closes.

A fault that finds no sandbox to act on does not count as fired (the run is then unknown).
"""

from __future__ import annotations

from harness.faults._base import Action, Effect, FaultContext
from harness.faults._registry import fault_kind
from harness.faults._request_fault import RequestFault

__all__ = ["DisconnectExecutor", "KillExecutor", "ReplaceExecutor"]


@fault_kind("kill_executor")
class KillExecutor(RequestFault):
    def action(self, ctx: FaultContext) -> Action:
        return Effect("kill_executor")


@fault_kind("replace_executor")
class ReplaceExecutor(RequestFault):
    def action(self, ctx: FaultContext) -> Action:
        return Effect("replace_executor")


@fault_kind("disconnect_executor")
class DisconnectExecutor(RequestFault):
    def action(self, ctx: FaultContext) -> Action:
        return Effect("disconnect_executor", self.params)
