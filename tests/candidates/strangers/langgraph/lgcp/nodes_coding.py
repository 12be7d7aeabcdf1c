"""The coding workload's check of a `deliver_result` call.

A delivery is accepted only when what it claims can be checked now: the tests passed, the
artifact's bytes hash to the delivered `sha256`, and the sandbox is still the one the tests ran in.
A replaced sandbox keeps its environment id, so the id proves nothing: its files are gone, so the
delivery's `path` must still be listed in the environment. A refused delivery leaves a notice to
send the agent once its turn is over (it then restores, re-tests and delivers again).
"""

from __future__ import annotations

import hashlib
import posixpath
from dataclasses import dataclass
from typing import Any

import openai

from . import httpio, tools
from .deps import Deps

REPLACED = ("The sandbox environment was replaced and its files are gone: restore the files, run the "
            "tests again and deliver a fresh report.")
CORRUPTED = ("The delivered report artifact does not match its sha256 (it was corrupted in storage): "
             "capture the report again from the sandbox and deliver the fresh artifact.")
FAILED_TESTS = "The tests did not pass: fix the code, run the tests again and deliver a fresh report."


@dataclass
class Check:
    status: str  # accept | refuse | revoked | pending
    error: str = ""
    notice: str = ""
    delivery: dict[str, Any] | None = None


def check_delivery(deps: Deps, session: dict[str, Any], call: dict[str, Any]) -> Check:
    """Decide on one `deliver_result` call from what the API shows now."""
    args = tools.arguments(call.get("arguments"))
    raw_tests = args.get("tests")
    tests: dict[str, Any] = raw_tests if isinstance(raw_tests, dict) else {}
    if tests.get("passed") is not True:
        return Check("refuse", "the tests did not pass", FAILED_TESTS)
    session_id = str(session["id"])
    artifact_id, path, digest = str(args.get("artifact_id", "")), str(args.get("path", "")), str(args.get("sha256", ""))
    try:
        content = deps.api.artifact_bytes(session_id, artifact_id)
        if hashlib.sha256(content).hexdigest() != digest:
            return Check("refuse", "the artifact's bytes do not match its sha256", CORRUPTED)
        environment = session.get("environment") or {}
        environment_id = str(environment.get("id") or "")
        if not environment_id:
            return Check("refuse", "the delivery names no sandbox to check", REPLACED)
        folder = posixpath.dirname(path) or "/workspace"
        if path not in deps.api.environment_paths(environment_id, folder):
            return Check("refuse", f"{path} is gone from the sandbox: it was replaced", REPLACED)
    except (openai.APIError, ValueError) as exc:
        failure = httpio.classify_exception(exc)
        if failure.kind == "revoked":
            deps.store.revoke("openai", deps.clock.now(), failure.describe())
            return Check("revoked", failure.describe())
        if failure.kind == "definite" and failure.status == 404:
            return Check("refuse", f"the artifact or the sandbox is gone ({failure.describe()})", REPLACED)
        return Check("pending", failure.describe())
    uri = f"artifact://{session_id}/{artifact_id}"
    return Check("accept", delivery={"role": "report", "uri": uri, "sha256": digest,
                                     "path": path, "reset_count": tests.get("reset_count")})
