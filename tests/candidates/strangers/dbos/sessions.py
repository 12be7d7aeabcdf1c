"""The sessions API through the openai SDK, with its errors classified as the contract says.

The client is built with the scenario's ``OPENAI_MAX_RETRIES`` (a team that kept the SDK's
default), on an httpx2 transport that enforces the send gate. Writes the API cannot dedupe
(``sessions.create``) go through a copy of the client without retries; every ``events.create``
carries an idempotency key, so the SDK's own resend of it is applied once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx2
import openai

from gate import Authority, Forbidden, GatedTransport2
from settings import Settings

DEFINITE = {400, 401, 403, 404, 422}
MODEL = "gpt-5.1"

_S = {"type": "string"}
_I = {"type": "integer"}
TOOL_SCHEMAS: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "wp_upload_media": ("Upload one image to the WordPress media library.",
                        {"filename": _S, "content_base64": _S, "mime_type": _S, "alt_text": _S},
                        ["filename", "content_base64", "mime_type", "alt_text"]),
    "wp_create_draft": ("Create the article as a WordPress draft.",
                        {"title": _S, "content": _S, "excerpt": _S, "slug": _S},
                        ["title", "content"]),
    "wp_update_post": ("Update fields of the job's draft (excerpt, featured image, content).",
                       {"post_id": _I, "excerpt": _S, "featured_media": _I, "content": _S},
                       ["post_id"]),
    "wp_set_seo": ("Set the draft's Rank Math SEO title, description and focus keyword.",
                   {"post_id": _I, "title": _S, "description": _S, "focus_keyword": _S},
                   ["post_id", "title", "description", "focus_keyword"]),
    "wp_get_post": ("Read the job's draft back.", {"post_id": _I}, ["post_id"]),
    "deliver_result": ("Deliver the checked report of the coding task.",
                       {"artifact_id": _S, "path": _S, "sha256": _S,
                        "tests": {"type": "object", "properties": {
                            "passed": {"type": "boolean"}, "output": _S, "reset_count": _I},
                            "required": ["passed", "output", "reset_count"]}},
                       ["artifact_id", "path", "sha256", "tests"]),
}


@dataclass(frozen=True)
class ApiFailure(Exception):
    """A sessions-API call failed: ``kind`` is definite, refused, unknown or not_sent."""

    kind: str
    status: int | None
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.kind} {self.status} {self.code} {self.message}"[:400]


def _forbidden_cause(exc: BaseException) -> Forbidden | None:
    seen: BaseException | None = exc
    for _ in range(6):
        if seen is None:
            return None
        if isinstance(seen, Forbidden):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def tool_definitions(allowed: list[str]) -> list[dict[str, Any]]:
    return [{"type": "function", "name": name, "description": desc,
             "parameters": {"type": "object", "properties": props, "required": required}}
            for name, (desc, props, required) in TOOL_SCHEMAS.items() if name in allowed]


def _dict(model: Any) -> dict[str, Any]:
    if isinstance(model, dict):
        return model
    return dict(model.to_dict()) if hasattr(model, "to_dict") else dict(model.model_dump())


class Sessions:
    """The job's view of the sessions API."""

    def __init__(self, settings: Settings, authority: Authority) -> None:
        self.authority = authority
        http = httpx2.Client(transport=GatedTransport2(authority, "openai"),
                             timeout=settings.io_timeout)
        self.client = openai.OpenAI(
            base_url=settings.openai_base_url, api_key=settings.openai_api_key,
            webhook_secret=settings.openai_webhook_secret or None,
            max_retries=settings.openai_max_retries, timeout=settings.io_timeout,
            http_client=http)
        self.no_retry = self.client.with_options(max_retries=0)

    def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except openai.APIStatusError as exc:
            body = exc.body if isinstance(exc.body, dict) else {}
            err = body.get("error", body) if isinstance(body, dict) else {}
            code = str((err or {}).get("code") or "") if isinstance(err, dict) else ""
            status = exc.status_code
            kind = "refused" if status == 401 else "definite" if status in DEFINITE else "unknown"
            if kind == "refused":
                self.authority.refuse("openai", f"HTTP 401 {code}")
            raise ApiFailure(kind, status, code, str(exc)) from exc
        except (openai.APIConnectionError, openai.APITimeoutError) as exc:
            forbidden = _forbidden_cause(exc)
            if forbidden is not None:
                raise forbidden from exc
            not_sent = isinstance(exc.__cause__, (httpx2.ConnectError, httpx2.ConnectTimeout))
            raise ApiFailure("not_sent" if not_sent else "unknown", None, "", str(exc)) from exc

    def list_for(self, job_id: str, version: str) -> list[dict[str, Any]]:
        page = self._call(self.client.beta.agents.sessions.list,
                          metadata={"job_id": job_id, "task_version": version},
                          order="asc", limit=100)
        return [_dict(s) for s in page.data]

    def create(self, job: dict[str, Any], version: str, allowed: list[str]) -> dict[str, Any]:
        coding = job.get("workload") == "coding"
        text = (f"Implement and test the coding task of job {job['job_id']}, version {version}."
                if coding else
                f"Write and stage the WordPress article of job {job['job_id']}, version {version}.")
        session = self._call(
            self.no_retry.beta.agents.sessions.create,
            environment={"type": "openai_hosted" if coding else "none"},
            agent={"model": MODEL, "instructions": "You are a careful agent. Use the tools given.",
                   "tools": tool_definitions(allowed)},
            input=text, metadata={"job_id": str(job["job_id"]), "task_version": version})
        return _dict(session)

    def retrieve(self, session_id: str) -> dict[str, Any]:
        return _dict(self._call(self.client.beta.agents.sessions.retrieve, session_id))

    def root_turns(self, session_id: str) -> list[dict[str, Any]]:
        page = self._call(self.client.beta.agents.sessions.turns.list, session_id,
                          order="asc", limit=100)
        turns = [_dict(t) for t in page.data]
        while getattr(page, "has_more", False) and turns:
            page = self._call(self.client.beta.agents.sessions.turns.list, session_id,
                              order="asc", limit=100, after=turns[-1]["id"])
            turns += [_dict(t) for t in page.data]
        return [t for t in turns if not t.get("subagent_id")]

    def send(self, session_id: str, events: list[dict[str, Any]], key: str) -> None:
        self._call(self.client.beta.agents.sessions.events.create, session_id,
                   events=events, idempotency_key=key)

    def artifact_bytes(self, session_id: str, artifact_id: str) -> bytes:
        response = self._call(self.client.beta.agents.sessions.artifacts.content, artifact_id,
                              session_id=session_id)
        return bytes(response.read()) if hasattr(response, "read") else bytes(response.content)

    def workspace_files(self, environment_id: str) -> list[dict[str, Any]]:
        page = self._call(self.client.beta.agents.environments.files.list, environment_id,
                          path="/workspace")
        return [_dict(f) for f in page.data]

    def environment(self, environment_id: str) -> dict[str, Any]:
        return _dict(self._call(self.client.beta.agents.environments.retrieve, environment_id))
