"""The coding workload: deliver a report only after checking it.

A ``deliver_result`` call is accepted when the artifact's bytes hash to the claimed sha256, the
tests passed, and the sandbox still holds the report it describes (the environment id proves
nothing: a replaced sandbox keeps it, but its files are gone). The bytes are fetched first and the
sandbox is looked at afterwards, so a sandbox lost while the report was being fetched is noticed.
A stale report is refused; once the agent's turn is over it is told that the environment was
replaced, and it restores, re-runs and delivers afresh.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from tests.candidates.strangers.polling.actions import Answer, Wait
from tests.candidates.strangers.polling.records import Call, Job
from tests.candidates.strangers.polling.sessions import Refused, SessionsApi, Transient
from tests.candidates.strangers.polling.store import Store

__all__ = ["ENVIRONMENT_REPLACED_NOTICE", "Deliveries"]

WORKSPACE = "/workspace"
MAX_ATTEMPTS = 8
ENVIRONMENT_REPLACED_NOTICE = (
    "The execution environment was replaced: its files are gone, so the report you delivered describes a "
    "sandbox that no longer exists and was not accepted. Restore the files, run the tests again and deliver "
    "a fresh report.")

DELIVER_RESULT_TOOL: dict[str, Any] = {
    "type": "function", "name": "deliver_result",
    "description": "Deliver the test report captured as a session artifact.",
    "parameters": {
        "type": "object",
        "properties": {
            "artifact_id": {"type": "string"}, "path": {"type": "string"}, "sha256": {"type": "string"},
            "tests": {"type": "object", "properties": {"passed": {"type": "boolean"}, "output": {"type": "string"},
                                                       "reset_count": {"type": "integer"}}},
        },
        "required": ["artifact_id", "path", "sha256", "tests"],
    },
}


def _in_workspace(path: str) -> str:
    return path if path.startswith("/") else f"{WORKSPACE}/{path.removeprefix('./')}"


class Deliveries:
    """Checks and records ``deliver_result`` calls."""

    def __init__(self, store: Store, sessions: SessionsApi, now: Callable[[], float]) -> None:
        self._store = store
        self._sessions = sessions
        self._now = now

    @staticmethod
    def tool_definitions(allowed: list[str]) -> list[dict[str, Any]]:
        return [DELIVER_RESULT_TOOL] if "deliver_result" in allowed else []

    def perform(self, job: Job, session: Any, call: Call) -> Answer | Wait:
        if call.name != "deliver_result":
            return Answer.fail(f"{call.name} is not performed by this control plane for this job")
        args = call.arguments
        artifact_id, path, claimed = args.get("artifact_id"), args.get("path"), args.get("sha256")
        tests = args.get("tests")
        if not (isinstance(artifact_id, str) and isinstance(path, str) and isinstance(claimed, str)
                and isinstance(tests, Mapping)):
            return Answer.fail("deliver_result needs artifact_id, path, sha256 and tests")
        now = self._now()
        if call.not_before > now:
            return Wait(call.not_before - now)
        if tests.get("passed") is not True:
            return self._refuse(job, call, args, "the tests did not pass; nothing was delivered")
        try:
            data = self._sessions.artifact_bytes(str(session.id), artifact_id)
        except Transient:
            return self._retry(call, now)
        except Refused as exc:
            return self._refuse(job, call, args, f"artifact {artifact_id} cannot be read: {exc}")
        digest = hashlib.sha256(data).hexdigest()
        if digest != claimed.lower():
            return self._refuse(job, call, args, f"artifact {artifact_id} hashes to {digest}, not {claimed}")
        environment_id = getattr(session.environment, "id", None)
        if not environment_id:
            return self._refuse(job, call, args, "the session has no sandbox to check the report against")
        try:
            files = self._sessions.workspace_files(str(environment_id), WORKSPACE)
        except Transient:
            return self._retry(call, now)
        except Refused:
            files = {}
        if files.get(_in_workspace(path)) != len(data):
            self._store.set_env_notice(job, True)
            return self._refuse(job, call, args, f"stale delivery: the sandbox no longer holds {path} as reported "
                                                 f"(it was replaced); restore the files and run the tests again")
        self._store.record_delivery(job, call, artifact_id=artifact_id, path=path, sha256=digest,
                                    uri=f"artifact://{session.id}/{artifact_id}", state="verified")
        return Answer.ok({"delivered": True, "artifact_id": artifact_id, "path": path, "sha256": digest})

    def _retry(self, call: Call, now: float) -> Answer | Wait:
        if call.attempts + 1 >= MAX_ATTEMPTS:
            return Answer.fail("the report could not be checked; nothing was delivered")
        delay = float(min(30, 2 ** call.attempts))
        self._store.note_call_attempt(call, now + delay)
        return Wait(delay, worked=True)

    def _refuse(self, job: Job, call: Call, args: Mapping[str, Any], why: str) -> Answer:
        self._store.record_delivery(job, call, artifact_id=str(args.get("artifact_id", "")),
                                    path=str(args.get("path", "")), sha256=str(args.get("sha256", "")), uri="",
                                    state="refused")
        return Answer.fail(why)

    def on_answered(self, call_id: str) -> None:
        self._store.mark_delivered(call_id)

    def delivered(self, job: Job) -> list[dict[str, str]]:
        return [{"role": "report", "uri": d.uri, "sha256": d.sha256}
                for d in self._store.deliveries(job) if d.state == "delivered"]
