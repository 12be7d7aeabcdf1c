"""Session artifacts: immutable copies of environment files that a hosted session's turn published.

The agent captures a file of its environment (the brain's ``CaptureArtifact``); the bytes are
copied into the artifact at that instant, so they are still served after the environment is
replaced or has expired, and a later change of the file does not change the artifact.

=======  ================================================================  =========================
GET      /agents/sessions/{session_id}/artifacts                           CursorPage[SessionArtifact]
                                                                           (query ``environment_id``)
GET      /agents/sessions/{session_id}/artifacts/{artifact_id}             SessionArtifact
GET      /agents/sessions/{session_id}/artifacts/{artifact_id}/content     raw bytes, octet-stream
DELETE   /agents/sessions/{session_id}/artifacts/{artifact_id}             SessionArtifactDeleted
=======  ================================================================  =========================

Artifacts are published when captured, mid-turn (the real API publishes them when the turn
completes; the coding agent needs the id to deliver it in the same turn). ``truth()`` lists every
artifact ever captured with its digest, the ``reset_count`` of the sandbox it came from, and
whether it was deleted.

What it deliberately does not do: read the environment (the turn engine hands it the bytes) or
check authentication (``_service`` does).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from durable_harness.fakes._http import Router
from durable_harness.wire import Request, Response, json_response
from durable_harness.fakes.openai_agents._errors import not_found
from durable_harness.fakes.openai_agents._paging import cursor_page, page_query
from durable_harness.fakes.openai_agents._records import Clock, IdSource

__all__ = ["Artifact", "Artifacts", "add_artifact_routes", "artifact_object"]


@dataclass
class Artifact:
    id: str
    session_id: str
    turn_id: str
    environment_id: str
    path: str
    created_at: int
    data: bytes
    reset_count: int
    deleted: bool = False
    digests: list[dict[str, Any]] = field(default_factory=list)  # [{at_s, sha256}]: what it held, and since when

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def artifact_object(artifact: Artifact) -> dict[str, Any]:
    return {"id": artifact.id, "object": "agent.session.artifact", "created_at": artifact.created_at,
            "environment_id": artifact.environment_id, "path": artifact.path, "session_id": artifact.session_id,
            "size_bytes": len(artifact.data), "turn_id": artifact.turn_id}


class Artifacts:
    """Every artifact of every session of one fake."""

    def __init__(self, clock: Clock, ids: IdSource, changed: Callable[[], None]) -> None:
        self._clock = clock
        self._ids = ids
        self._changed = changed
        self._all: list[Artifact] = []

    def capture(self, *, session_id: str, turn_id: str, environment_id: str, path: str, data: bytes,
                reset_count: int) -> Artifact:
        artifact = Artifact(id=self._ids.next("art"), session_id=session_id, turn_id=turn_id,
                            environment_id=environment_id, path=path, created_at=self._clock.unix(),
                            data=bytes(data), reset_count=reset_count)
        artifact.digests.append({"at_s": self._clock.now(), "sha256": artifact.sha256})
        self._all.append(artifact)
        self._changed()
        return artifact

    def live(self, session_id: str, environment_id: str | None = None) -> list[Artifact]:
        """The session's artifacts not deleted, oldest first, optionally of one environment."""
        return [a for a in self._all if a.session_id == session_id and not a.deleted
                and (environment_id is None or a.environment_id == environment_id)]

    def get(self, session_id: str, artifact_id: str) -> Artifact:
        for artifact in self._all:
            if artifact.id == artifact_id and artifact.session_id == session_id and not artifact.deleted:
                return artifact
        raise not_found(f"No artifact found with id {artifact_id!r} in session {session_id!r}.", param="artifact_id")

    def delete(self, session_id: str, artifact_id: str) -> None:
        self.get(session_id, artifact_id).deleted = True
        self._changed()

    def corrupt_latest(self) -> dict[str, Any] | None:
        """Storage fails the newest live artifact: the same size, other bytes (a fault hook; None when
        there is none). The artifact's digest in ``truth()`` is then the corrupted one."""
        live = [a for a in self._all if not a.deleted and a.data]
        if not live:
            return None
        artifact = live[-1]
        before = artifact.sha256
        middle = len(artifact.data) // 2
        artifact.data = artifact.data[:middle] + bytes([artifact.data[middle] ^ 0xFF]) + artifact.data[middle + 1:]
        artifact.digests.append({"at_s": self._clock.now(), "sha256": artifact.sha256})
        self._changed()
        return {"artifact_id": artifact.id, "sha256_before": before, "sha256_after": artifact.sha256,
                "size_bytes": len(artifact.data)}

    def truth(self) -> list[dict[str, Any]]:
        return [{**artifact_object(a), "sha256": a.sha256, "reset_count": a.reset_count, "deleted": a.deleted,
                 "digests": [dict(d) for d in a.digests]} for a in self._all]


class _SessionLookup(Protocol):
    def session(self, session_id: str) -> object: ...


def add_artifact_routes(router: Router, sessions: _SessionLookup, artifacts: Artifacts) -> None:
    """Register the four artifact routes; ``sessions.session(id)`` raises the 404 of a missing session."""

    def listing(request: Request, session_id: str) -> Response:
        sessions.session(session_id)
        query = page_query(request)
        records = artifacts.live(session_id, request.arg("environment_id") or None)

        def artifact_id(artifact: Artifact) -> str:
            return artifact.id

        return json_response(200, cursor_page(records, query, key=artifact_id, render=artifact_object))

    def retrieve(request: Request, session_id: str, artifact_id: str) -> Response:
        sessions.session(session_id)
        return json_response(200, artifact_object(artifacts.get(session_id, artifact_id)))

    def content(request: Request, session_id: str, artifact_id: str) -> Response:
        sessions.session(session_id)
        artifact = artifacts.get(session_id, artifact_id)
        return Response(200, {"content-type": "application/octet-stream",
                              "content-length": str(len(artifact.data))}, artifact.data)

    def delete(request: Request, session_id: str, artifact_id: str) -> Response:
        sessions.session(session_id)
        artifacts.delete(session_id, artifact_id)
        return json_response(200, {"id": artifact_id, "object": "agent.session.artifact.deleted", "deleted": True})

    router.add("GET", "/agents/sessions/{session_id}/artifacts", listing)
    router.add("GET", "/agents/sessions/{session_id}/artifacts/{artifact_id}", retrieve)
    router.add("DELETE", "/agents/sessions/{session_id}/artifacts/{artifact_id}", delete)
    router.add("GET", "/agents/sessions/{session_id}/artifacts/{artifact_id}/content", content)
