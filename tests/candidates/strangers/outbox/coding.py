"""The coding workload: check a delivery against the world before accepting it.

``deliver_result`` is accepted only when, read now: the artifact's bytes hash to the delivered
``sha256`` (never the size alone), the tests passed, and the sandbox still holds the delivered file
at ``path`` with the artifact's size (a replaced sandbox keeps its environment id but loses its
files, so the id proves nothing). A stale or corrupt delivery is refused (``success: false``); once
the turn is over the agent is told to restore the sandbox, run the tests again and deliver anew.
"""

from __future__ import annotations

from typing import Any

from .jobs import Job
from .sessions import Sessions

DELIVER_TOOL = {
    "type": "function", "name": "deliver_result",
    "description": "Deliver the checked report of the coding task.",
    "parameters": {
        "type": "object",
        "properties": {
            "artifact_id": {"type": "string"}, "path": {"type": "string"},
            "sha256": {"type": "string"},
            "tests": {"type": "object",
                      "properties": {"passed": {"type": "boolean"}, "output": {"type": "string"},
                                     "reset_count": {"type": "integer"}},
                      "required": ["passed", "output", "reset_count"]},
        },
        "required": ["artifact_id", "path", "sha256", "tests"],
    },
}

REDO_MESSAGE = ("The delivered report could not be accepted: the sandbox was replaced or the report's "
                "bytes do not match its digest. Restore the files, run the tests again and deliver a "
                "fresh report.")


def tool_definitions(allowed: list[str]) -> list[dict[str, Any]]:
    return [DELIVER_TOOL] if "deliver_result" in allowed else []


class Coding:
    """Checks of ``deliver_result`` calls."""

    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions

    def check(self, job: Job, session: dict[str, Any],
              args: dict[str, Any]) -> tuple[str, dict[str, Any] | str]:
        """``accept`` (with the output), ``refuse`` (with the reason), or ``retry``/``revoked``
        when a read did not come back."""
        artifact_id = str(args.get("artifact_id") or "")
        claimed = str(args.get("sha256") or "")
        path = str(args.get("path") or "")
        tests = args.get("tests") if isinstance(args.get("tests"), dict) else {}
        if tests.get("passed") is not True:
            return "refuse", "the tests did not pass"
        answer, digest = self.sessions.artifact_digest(job.session_id or "", artifact_id)
        if answer.kind == "revoked":
            return "revoked", answer.describe()
        if answer.kind == "definite":
            return "refuse", f"artifact {artifact_id} cannot be read: {answer.describe()}"
        if not answer.ok or digest is None:
            return "retry", answer.describe()
        sha, size = digest
        if sha != claimed:
            return "refuse", f"artifact {artifact_id} hashes to {sha}, not {claimed}"
        environment_id = (session.get("environment") or {}).get("id")
        if environment_id:
            answer, files = self.sessions.sandbox_files(str(environment_id))
            if answer.kind == "revoked":
                return "revoked", answer.describe()
            if not answer.ok:
                return "retry", answer.describe()
            present = {f.get("path"): f.get("size_bytes") for f in files}
            wanted = path if path.startswith("/") else f"/workspace/{path}"
            if wanted not in present:
                return "refuse", f"the sandbox no longer holds {wanted}: it was replaced"
            if present[wanted] is not None and int(present[wanted]) != size:
                return "refuse", f"{wanted} in the sandbox is not the delivered report"
        uri = f"artifact://{job.session_id}/{artifact_id}"
        return "accept", {"delivered": True, "sha256": sha, "uri": uri}
