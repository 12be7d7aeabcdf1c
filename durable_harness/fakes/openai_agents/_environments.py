"""Hosted environments of the sessions fake: the prewarming API, session attachment, and events.

Every ``openai_hosted`` environment is a sandbox of the ``Executor`` under the same stable id.

* ``POST /agents/environments`` (optional ``Idempotency-Key``: the same key and body return the
  same environment; another body is a 400 ``idempotency_key_reused``) creates a *prewarmed*
  environment: ``pending`` then ``ready``. A session created with ``environment: {type:
  "openai_hosted", environment_id}`` attaches it (it must be ``ready`` and unattached); a session
  created without one gets a fresh environment. Attaching connects it (``connected``).
* Files (``POST|GET .../{environment_id}/files``) need a ``connected`` environment; otherwise 409
  ``environment_not_connected`` naming the status and what to do. Only ``inline`` files exist here.
* Executor events become session events (through the state's ``emit``):
  ``agent.session.environment.<status>{session_id, turn_id, environment{id,type,status}}`` and
  ``agent.session.environment.reset{session_id, turn_id, environment_id, reset_count}``. On
  ``disconnected`` the session gets the required action ``environment_connection{environment_id}``
  and an in-progress turn parks; ``connected`` (a reconnect) clears it and the turn resumes;
  ``expired``/``failed`` clear it and fail the active turn with ``sandbox_error``. A prewarmed
  environment no session uses reports ``agent.environment.<status>{environment}`` instead.

What it deliberately does not do: templates, ``file_id`` files (there is no Files API here),
plugins, skills, or self-hosted environments beyond their session object.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from durable_harness.fakes.executor import WORKSPACE, Executor, ExecutorError, ExecutorEvent, Reset
from durable_harness.fakes.openai_agents._errors import bad_request, conflict, not_found
from durable_harness.fakes.openai_agents._objects import environment_object
from durable_harness.fakes.openai_agents._records import Clock, IdSource, Session
from durable_harness.fakes.openai_agents._turns import Emit

__all__ = ["Environments", "Hosted", "Parking", "environment_info", "parse_inline_file"]

MAX_VAULTS = 10


class Parking(Protocol):
    """What the environments need of the turn engine (``TurnEngine`` fits)."""

    def park(self, session: Session) -> None: ...
    def unpark(self, session: Session) -> None: ...
    def fail_active(self, session: Session, code: str, message: str) -> None: ...


@dataclass
class Hosted:
    """One hosted environment as the API shows it (its sandbox lives in the executor)."""

    id: str
    created_at: int
    prewarmed: bool
    files: list[dict[str, Any]] = field(default_factory=list)   # HostedEnvironmentFile objects
    vault_ids: list[str] = field(default_factory=list)
    session_id: str | None = None


def environment_info(hosted: Hosted, status: str) -> dict[str, Any]:
    return {"id": hosted.id, "object": "agent.environment", "type": "openai_hosted", "status": status,
            "files": [dict(f) for f in hosted.files], "plugins": [], "skills": []}


def parse_inline_file(raw: Any, param: str) -> tuple[str, bytes]:
    """``{type: "inline", data: <base64>, path: </workspace/...>}`` -> (path, bytes); 400 otherwise."""
    if not isinstance(raw, dict):
        raise bad_request(f"Invalid '{param}': expected an object, got {raw!r}.", param=param)
    if raw.get("type") == "file_id":
        raise bad_request(f"Invalid '{param}.type': 'file_id' files are not supported by this fake (it has no "
                          "Files API); send {type: 'inline', data: <base64>, path}.", param=f"{param}.type")
    if raw.get("type") != "inline":
        raise bad_request(f"Invalid '{param}.type': {raw.get('type')!r}; expected 'inline'.", param=f"{param}.type")
    path = raw.get("path")
    if not isinstance(path, str) or not (path == WORKSPACE or path.startswith(WORKSPACE + "/")) or ".." in path:
        raise bad_request(f"Invalid '{param}.path': {path!r} must be an absolute path inside {WORKSPACE}, e.g. "
                          f"'{WORKSPACE}/data/input.csv'.", param=f"{param}.path")
    data = raw.get("data")
    try:
        decoded = base64.b64decode(data, validate=True) if isinstance(data, str) else None
    except (binascii.Error, ValueError):
        decoded = None
    if decoded is None:
        raise bad_request(f"Invalid '{param}.data': expected standard base64, got {str(data)[:40]!r}.",
                          param=f"{param}.data")
    return path.rstrip("/"), decoded


class Environments:
    def __init__(self, clock: Clock, ids: IdSource, executor: Executor, changed: Callable[[], None],
                 emit: Emit) -> None:
        self._clock = clock
        self._ids = ids
        self.executor = executor
        self._changed = changed
        self._emit = emit
        self._hosted: dict[str, Hosted] = {}
        self._planned: dict[str, dict[str, bytes]] = {}        # provisioned, sandbox not yet created
        self._sessions: dict[str, Session] = {}                # environment id -> attached session
        self._idempotency: dict[str, tuple[str, str]] = {}     # key -> (body digest, environment id)

    # -- queries ------------------------------------------------------------------------------
    def get(self, environment_id: str) -> Hosted:
        hosted = self._hosted.get(environment_id)
        if hosted is None:
            raise not_found(f"No environment found with id {environment_id!r}.", param="environment_id")
        return hosted

    def all(self) -> list[Hosted]:
        return list(self._hosted.values())

    def info(self, environment_id: str) -> dict[str, Any]:
        return environment_info(self.get(environment_id), self.executor.status(environment_id))

    # -- the prewarming API -------------------------------------------------------------------
    def create(self, body: Any, idempotency_key: str | None) -> dict[str, Any]:
        """``POST /agents/environments`` -> EnvironmentInfo (validated before anything changes)."""
        if not isinstance(body, dict):
            raise bad_request(f"Invalid body: expected an object, got {body!r}.")
        for key in body:
            if key not in ("environment", "vault_ids"):
                raise bad_request(f"Unrecognized request argument supplied: {key}", param=key)
        digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        if idempotency_key is not None and idempotency_key in self._idempotency:
            seen, environment_id = self._idempotency[idempotency_key]
            if seen != digest:
                raise bad_request(f"Idempotency-Key {idempotency_key!r} was already used with a different request; "
                                  "use a new key for a new request.", code="idempotency_key_reused")
            return self.info(environment_id)
        spec = body.get("environment")
        if not isinstance(spec, dict) or spec.get("type") != "openai_hosted":
            raise bad_request(f"Invalid 'environment': {spec!r}; expected {{type: 'openai_hosted', ...}}.",
                              param="environment")
        if "environment_id" in spec:
            raise bad_request("Invalid 'environment.environment_id': it names a prewarmed environment when creating "
                              "a session; leave it out here.", param="environment.environment_id")
        vault_ids = body.get("vault_ids") or []
        if not isinstance(vault_ids, list) or len(vault_ids) > MAX_VAULTS \
                or not all(isinstance(v, str) for v in vault_ids):
            raise bad_request(f"Invalid 'vault_ids': {vault_ids!r} must be a list of at most {MAX_VAULTS} strings.",
                              param="vault_ids")
        files = self._files(spec, "environment.files")
        hosted = self._register(self._ids.next("env"), files, prewarmed=True, vault_ids=list(vault_ids))
        self.executor.create(hosted.id, files=files)
        if idempotency_key is not None:
            self._idempotency[idempotency_key] = (digest, hosted.id)
        self._changed()
        return self.info(hosted.id)

    def upload(self, environment_id: str, body: Any) -> dict[str, Any]:
        """``POST .../files`` -> EnvironmentFile; 409 unless the environment is connected."""
        self.get(environment_id)
        path, data = parse_inline_file(body, "body")
        try:
            written = self.executor.write_file(environment_id, path, data)
        except ExecutorError as error:
            raise conflict(str(error), code="environment_not_connected") from None
        self._changed()
        return {"object": "agent.environment.file", "environment_id": environment_id, "path": written,
                "size_bytes": len(data)}

    def live_files(self, environment_id: str, directory: str) -> dict[str, int]:
        self.get(environment_id)
        if not (directory == WORKSPACE or directory.startswith(WORKSPACE + "/")) or ".." in directory:
            raise bad_request(f"Invalid 'path': {directory!r} must be an absolute directory inside {WORKSPACE}.",
                              param="path")
        try:
            return self.executor.list_files(environment_id, directory)
        except ExecutorError as error:
            raise conflict(str(error), code="environment_not_connected") from None

    # -- sessions -----------------------------------------------------------------------------
    def provision(self, spec: Mapping[str, Any]) -> dict[str, Any]:
        """The environment object of a session about to be created; raises before any change."""
        if spec["type"] == "none":
            return environment_object(spec, "")
        if spec["type"] == "self_hosted":
            return environment_object(spec, self._ids.next("env"))
        for unsupported in ("environment_template_id", "plugins", "skills"):
            if spec.get(unsupported):
                raise bad_request(f"Invalid 'environment.{unsupported}': not supported by this fake.",
                                  param=f"environment.{unsupported}")
        prewarmed = spec.get("environment_id")
        if prewarmed is None:
            files = self._files(spec, "environment.files")
            environment_id = self._ids.next("env")
            self._register(environment_id, files, prewarmed=False)
            self._planned[environment_id] = files
            hosted = self._hosted[environment_id]
        else:
            hosted = self._prewarmed(prewarmed, spec)
        body = environment_object(spec, hosted.id)
        body["files"] = [dict(f) for f in hosted.files]
        return body

    def attach(self, session: Session) -> None:
        """Bind the new session to its hosted environment: create (or connect) the sandbox."""
        environment_id = session.environment.get("id")
        if session.environment.get("type") != "openai_hosted" or not isinstance(environment_id, str):
            return
        self._sessions[environment_id] = session
        self._hosted[environment_id].session_id = session.id
        files = self._planned.pop(environment_id, None)
        if files is not None:
            self.executor.create(environment_id, files=files)
        self.executor.connect(environment_id)

    def session_of(self, environment_id: str) -> Session | None:
        return self._sessions.get(environment_id)

    # -- executor events ----------------------------------------------------------------------
    def on_event(self, event: ExecutorEvent, parking: Parking) -> None:
        session = self._sessions.get(event.environment_id)
        self._changed()
        if session is None or session.deleted:
            if not isinstance(event, Reset) and event.status in ("ready", "failed", "suspended", "expired"):
                self._emit(f"agent.environment.{event.status}", {"environment": {
                    "id": event.environment_id, "type": "openai_hosted", "status": event.status}})
            return
        turn = session.active_turn()
        base = {"session_id": session.id, "turn_id": turn.id if turn is not None else None}
        if isinstance(event, Reset):
            self._emit("agent.session.environment.reset",
                       {**base, "environment_id": event.environment_id, "reset_count": event.reset_count})
            return
        self._emit(f"agent.session.environment.{event.status}", {**base, "environment": {
            "id": event.environment_id, "type": "openai_hosted", "status": event.status}})
        if event.status == "disconnected":
            session.environment_action = {"type": "environment_connection", "environment_id": event.environment_id}
            parking.park(session)
        elif event.status == "connected" and session.environment_action is not None:
            session.environment_action = None
            parking.unpark(session)
        elif event.status in ("expired", "failed"):
            session.environment_action = None
            parking.fail_active(session, "sandbox_error", f"The session's environment {event.environment_id!r} has "
                                f"{event.status}; its sandbox and files are gone.")

    def truth(self) -> list[dict[str, Any]]:
        return [{"id": h.id, "prewarmed": h.prewarmed, "session_id": h.session_id, "created_at": h.created_at,
                 "vault_ids": list(h.vault_ids)} for h in self._hosted.values()]

    # -- helpers ------------------------------------------------------------------------------
    def _files(self, spec: Mapping[str, Any], param: str) -> dict[str, bytes]:
        raw = spec.get("files") or []
        if not isinstance(raw, list):
            raise bad_request(f"Invalid '{param}': expected a list of files, got {raw!r}.", param=param)
        files: dict[str, bytes] = {}
        for index, entry in enumerate(raw):
            path, data = parse_inline_file(entry, f"{param}[{index}]")
            files[path] = data
        return files

    def _register(self, environment_id: str, files: Mapping[str, bytes], *, prewarmed: bool,
                  vault_ids: list[str] | None = None) -> Hosted:
        listed = [{"id": self._ids.next("envfile"), "type": "inline", "path": path, "size_bytes": len(data)}
                  for path, data in files.items()]
        hosted = Hosted(id=environment_id, created_at=self._clock.unix(), prewarmed=prewarmed, files=listed,
                        vault_ids=vault_ids or [])
        self._hosted[environment_id] = hosted
        return hosted

    def _prewarmed(self, environment_id: Any, spec: Mapping[str, Any]) -> Hosted:
        param = "environment.environment_id"
        if not isinstance(environment_id, str) or environment_id not in self._hosted:
            raise bad_request(f"Invalid '{param}': no prewarmed environment {environment_id!r}; create one with "
                              "POST /agents/environments.", param=param, code="environment_not_found")
        if spec.get("files"):
            raise bad_request("Invalid 'environment.files': a prewarmed environment keeps its own files; upload more "
                              f"with POST /agents/environments/{environment_id}/files.", param="environment.files")
        hosted = self._hosted[environment_id]
        status = self.executor.status(environment_id)
        if hosted.session_id is not None or status != "ready":
            owner = f" (attached to session {hosted.session_id!r})" if hosted.session_id else ""
            raise conflict(f"Environment {environment_id!r} is {status}{owner}; a session needs a ready environment "
                           "that no other session uses. Create another with POST /agents/environments.",
                           param=param, code="environment_unavailable")
        return hosted
