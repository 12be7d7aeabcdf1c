"""The coding workload's one tool: checking a ``deliver_result`` before accepting it.

A delivery is accepted only when the tests passed, the artifact's bytes hash to the claimed
sha256 (never the size alone), and the sandbox is still the one the tests ran in: the report file
is still in ``/workspace`` (a replaced sandbox keeps its environment id, so the id proves
nothing, but its files are gone). A refused delivery is remembered, so that when the agent's turn
ends it can be told the environment was replaced and asked for a fresh report.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from gate import Forbidden
from sessions import ApiFailure, Sessions
from store import Store
from tools import answer, stop


def _workspace_has(files: list[dict[str, Any]], path: str, size: int) -> bool:
    wanted = path if path.startswith("/") else "/workspace/" + path
    for item in files:
        name = str(item.get("path") or "")
        if name in (path, wanted) or name.endswith("/" + path.lstrip("/")):
            declared = item.get("size_bytes")
            return declared is None or int(declared) == size
    return False


class DeliveryChecker:
    """Verifies a deliver_result call against the artifact and the sandbox as they are now."""

    def __init__(self, store: Store, sessions: Sessions) -> None:
        self.store = store
        self.sessions = sessions

    def run(self, job_id: str, version: str, session_id: str, environment_id: str | None,
            call: dict[str, Any]) -> dict[str, Any]:
        args = call.get("arguments") or {}
        if isinstance(args, str):
            args = json.loads(args or "{}")
        row = self.store.version(job_id, version)
        if row is None or "deliver_result" not in row.allowed_tools:
            return answer(False, error="The tool 'deliver_result' is not among the job's allowed tools.")
        tests = args.get("tests") or {}
        try:
            reason = self._refusal(session_id, environment_id, args, tests)
        except Forbidden as exc:
            return stop(exc.reason)
        except ApiFailure as exc:
            if exc.kind == "refused":
                return stop("refused")
            return {"kind": "later", "reason": str(exc)}
        if reason is not None:
            self.store.update_version(job_id, version, stale_delivery=reason)
            return answer(False, error=f"Delivery refused: {reason}")
        return answer(True, {"delivered": True, "sha256": args.get("sha256"),
                             "artifact_id": args.get("artifact_id")})

    def _refusal(self, session_id: str, environment_id: str | None, args: dict[str, Any],
                 tests: dict[str, Any]) -> str | None:
        if tests.get("passed") is not True:
            return "the tests did not pass"
        artifact_id = str(args.get("artifact_id") or "")
        claimed = str(args.get("sha256") or "")
        data = self.sessions.artifact_bytes(session_id, artifact_id)
        if hashlib.sha256(data).hexdigest() != claimed:
            return "the artifact's bytes do not match the delivered sha256"
        if not environment_id:
            return "the session has no sandbox to check"
        files = self.sessions.workspace_files(environment_id)
        if not _workspace_has(files, str(args.get("path") or ""), len(data)):
            return ("the report is no longer in the sandbox: the environment was replaced "
                    "after the tests ran")
        return None
