"""The coding workload's one tool, ``deliver_result``: accept the agent's report only when it is
what it claims to be, from the sandbox as it is now.

* The artifact's bytes must hash to the digest the agent claims.
* The sandbox must still hold the report (same size): an environment keeps its id when it is
  replaced, so the id proves nothing; files that vanished mean the tests ran in a sandbox that no
  longer exists. Such a delivery is refused, and the agent is told to restore and re-run.
* The tests must have passed.

What it deliberately does not do: run anything in the sandbox itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import openai

from durable_harness.candidates.reference._messages import raise_refusal
from durable_harness.candidates.reference._safeguards import Safeguards
from durable_harness.candidates.reference._store import JobRow, Store
from durable_harness.candidates.reference._tools import ToolOutcome

__all__ = ["RERUN_MESSAGE", "CodingTools"]

WORKSPACE = "/workspace"
RERUN_MESSAGE = ("The sandbox environment was replaced: its files and earlier test results are gone. "
                 "Restore the files, run the tests again, and deliver the fresh report.")


class CodingTools:
    def __init__(self, api: openai.OpenAI, store: Store, safeguards: Safeguards) -> None:
        self.api = api
        self.store = store
        self.sg = safeguards

    def deliver_result(self, job: JobRow, session_id: str, environment_id: str | None,
                       args: Mapping[str, Any]) -> tuple[ToolOutcome, bool]:
        """The outcome to answer, and whether the agent must re-run in a fresh sandbox."""
        artifact_id, claimed = str(args["artifact_id"]), str(args["sha256"])
        path = str(args.get("path") or "")
        tests = args.get("tests") or {}
        try:
            content = self.api.beta.agents.sessions.artifacts.content(artifact_id, session_id=session_id).read()
        except openai.NotFoundError:
            return ToolOutcome("failure", error=f"artifact {artifact_id} does not exist"), False
        except (openai.APIConnectionError, openai.APIStatusError) as err:
            raise_refusal(err)
            return ToolOutcome("pending", error=f"could not read artifact {artifact_id}: {err}"), False
        actual = hashlib.sha256(content).hexdigest()
        if not self.sg.verify_artifact_digest:  # the bug: "the size matches, so it is the same file"
            actual = claimed
        if actual != claimed:
            return ToolOutcome("failure", error=f"digest mismatch: the artifact hashes to {actual}, not {claimed}"), False
        if not tests.get("passed"):
            return ToolOutcome("failure", error="the tests did not pass"), False
        if self.sg.verify_environment and environment_id is not None:
            try:
                present = self._sandbox_size(environment_id, path)
            except (openai.APIConnectionError, openai.APIStatusError) as err:
                raise_refusal(err)
                return ToolOutcome("pending", error=f"could not list the sandbox: {err}"), False
            if present != len(content):
                return ToolOutcome("failure", error="stale result: " + RERUN_MESSAGE), True
        key = f"{job.job_id}/v{job.task_version}/deliver"
        receipt = {"delivered": True, "artifact_id": artifact_id, "sha256": actual}
        if self.store.op(key) is None:
            self.store.prepare(key, job, "deliver_result", actual)
        self.store.set_op(key, "CONFIRMED", remote_id=artifact_id, receipt=receipt)
        return ToolOutcome("success", receipt, operation_key=key), False

    def still_good(self, session_id: str, environment_id: str | None, args: Mapping[str, Any]) -> bool:
        """Whether an accepted delivery is still what it was when it was checked: its artifact still
        hashes to the digest and the sandbox still holds the report (asked again before an answer is
        sent again after a pause: what was checked then may have changed since). False when it cannot
        tell (a read failed): the call is then checked afresh on the next step."""
        artifact_id, claimed = str(args["artifact_id"]), str(args["sha256"])
        try:
            content = self.api.beta.agents.sessions.artifacts.content(artifact_id, session_id=session_id).read()
            if self.sg.verify_artifact_digest and hashlib.sha256(content).hexdigest() != claimed:
                return False
            if self.sg.verify_environment and environment_id is not None:
                return self._sandbox_size(environment_id, str(args.get("path") or "")) == len(content)
        except (openai.APIConnectionError, openai.APIStatusError) as err:
            raise_refusal(err)
            return False
        return True

    def _sandbox_size(self, environment_id: str, path: str) -> int | None:
        """Size of ``path`` in the sandbox now (None if it is not there)."""
        wanted = path if path.startswith("/") else f"{WORKSPACE}/{path}"
        files = self.api.beta.agents.environments.files.list(environment_id, path=WORKSPACE, limit=100)
        for entry in files:  # every page
            if getattr(entry, "path", None) == wanted:
                return int(entry.size_bytes)
        return None
