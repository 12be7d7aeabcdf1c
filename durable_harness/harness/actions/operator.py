"""The operator's actions: revoke a credential; change the job's allowed tools; deploy a new version.

``revoke_credentials`` revokes what the candidate was given for one service (``service``:
``wordpress`` its application password, ``openai`` its API key, ``approvals`` its token): from then
on the service refuses it (401), and a correct control plane stops and asks for a human instead of
trying again or around it. ``change_allowed_tools`` removes (and may add) tools of the job's
``allowed_tools`` and submits the job again, same version, so the candidate learns its new policy;
a tool no longer allowed must not be executed any more. ``deploy`` stops the running control plane
(a Python candidate's instance process is killed, as at a crash: nothing it has not committed
survives; as a process: SIGTERM, then SIGKILL after a grace period) and starts the next version (``--candidate-next``; the same candidate when none is
given) on the same database, between two of its steps: pending work must survive the new code
(a durable-execution library that pins pending workflows to the version that started them
strands them).
"""

from __future__ import annotations

from typing import Any

from durable_harness.harness.actions._base import ActionContext, ScenarioAction, action_kind

__all__ = ["ChangeAllowedTools", "Deploy", "RevokeCredentials"]

_TOOL = {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}


@action_kind("revoke_credentials", "operator")
class RevokeCredentials(ScenarioAction):
    params_schema = {"service": {"enum": ["wordpress", "openai", "approvals"], "default": "wordpress"}}

    def perform(self, world: ActionContext) -> dict[str, Any] | None:
        service = str(self.param("service"))
        fake = world.services[service].fake
        if service == "wordpress":
            revoked: Any = fake.revoke_app_password()
        elif service == "openai":
            fake.revoke_api_key()
            revoked = "api-key#1"
        else:
            revoked = fake.revoke_token()
        return {"service": service, "revoked": revoked}


@action_kind("change_allowed_tools", "operator")
class ChangeAllowedTools(ScenarioAction):
    params_schema = {"remove": {"type": "array", "items": _TOOL, "uniqueItems": True, "default": []},
                     "add": {"type": "array", "items": _TOOL, "uniqueItems": True, "default": []}}

    def perform(self, world: ActionContext) -> dict[str, Any] | None:
        driver = world.candidate()
        if driver is None or not driver.alive:
            return None
        tools = [t for t in world.job["allowed_tools"] if t not in self.param("remove")]
        tools += [t for t in self.param("add") if t not in tools]
        job = {**world.job, "allowed_tools": tools}
        answer = driver.submit(job)
        world.set_job(job)
        return {"allowed_tools": tools, "acknowledged": answer is not None}


@action_kind("deploy", "operator")
class Deploy(ScenarioAction):
    def perform(self, world: ActionContext) -> dict[str, Any] | None:
        return world.request_deploy()
