"""Executing the agent's tool calls as ledgered side effects.

Each business action gets an operation key derived from the job and the action's business
identity (not from the call_id: the agent may re-issue the same action under a new call_id).
The ledger row moves PREPARED -> SENT -> CONFIRMED | FAILED | UNKNOWN, each state committed
before the next I/O. An UNKNOWN write is looked up by its operation key before any retry: by the
key, never by the title or file name (a busy site has other posts of the same title, other jobs'
uploads of the same name), and through every page of the listing. A 5xx is UNKNOWN like a timeout:
a proxy may answer 502 after WordPress committed the write.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from durable_harness.candidates.reference._safeguards import Safeguards
from durable_harness.candidates.reference._store import JobRow, Store
from durable_harness.candidates.reference._wordpress import Definite, Indefinite, WordPress

__all__ = ["ToolOutcome", "ToolRunner"]

MAX_ATTEMPTS = 5
BACKOFF_S = (1.0, 2.0, 4.0, 8.0, 16.0)


@dataclass(frozen=True)
class ToolOutcome:
    status: str  # "success" | "failure" | "pending"
    output: Mapping[str, Any] | None = None
    error: str | None = None
    operation_key: str | None = None
    retryable: bool = False  # a failure that a later attempt may not have (rate limits, exhausted retries)


Write = Callable[[str], tuple[str, Mapping[str, Any]]]
Lookup = Callable[[str], tuple[str, Mapping[str, Any]] | None]


class ToolRunner:
    def __init__(self, store: Store, wp: WordPress, sleep: Callable[[float], None], safeguards: Safeguards) -> None:
        self.store = store
        self.wp = wp
        self.sleep = sleep
        self.sg = safeguards
        self._call_id: str | None = None

    def run(self, job: JobRow, name: str, args: Mapping[str, Any], call_id: str | None = None) -> ToolOutcome:
        self._call_id = call_id  # only a control plane that keys its writes on the call uses it
        handler = getattr(self, f"_tool_{name}", None)
        if handler is None:
            return ToolOutcome("failure", error=f"tool {name!r} is not implemented by this control plane")
        try:
            result: ToolOutcome = handler(job, args)
        except (KeyError, TypeError, ValueError) as err:
            return ToolOutcome("failure", error=f"bad arguments for {name}: {type(err).__name__}: {err}")
        return result

    # -- tools -----------------------------------------------------------------------------
    def _tool_wp_upload_media(self, job: JobRow, args: Mapping[str, Any]) -> ToolOutcome:
        filename = str(args["filename"])
        content = base64.b64decode(str(args["content_base64"]), validate=True)

        def write(key: str) -> tuple[str, Mapping[str, Any]]:
            media = self.wp.upload(key, filename, content, str(args.get("mime_type", "image/png")), str(args.get("alt_text", "")))
            return str(media["id"]), {"media_id": int(media["id"]), "source_url": media.get("source_url", "")}

        return self._ledgered(job, "wp_upload_media", f"media:{filename}", args, write, self._lookup("media", filename))

    def _tool_wp_create_draft(self, job: JobRow, args: Mapping[str, Any]) -> ToolOutcome:
        fields = {k: args[k] for k in ("title", "content", "excerpt", "slug") if k in args}

        def write(key: str) -> tuple[str, Mapping[str, Any]]:
            post = self.wp.create_post(key, fields)
            return str(post["id"]), {"post_id": int(post["id"]), "link": post.get("link", "")}

        return self._ledgered(job, "wp_create_draft", "draft", args, write, self._lookup("posts", str(args.get("title", ""))))

    def _tool_wp_update_post(self, job: JobRow, args: Mapping[str, Any]) -> ToolOutcome:
        post_id = int(args["post_id"])
        fields = {k: args[k] for k in ("excerpt", "featured_media", "content", "title") if k in args}

        def write(key: str) -> tuple[str, Mapping[str, Any]]:
            post = self.wp.update_post(post_id, fields)
            return str(post_id), {"post_id": post_id, "modified": post.get("modified")}

        # An update sets fields to values: sending it twice is harmless, so no lookup is needed.
        return self._ledgered(job, "wp_update_post", f"update:{post_id}:{_digest(fields)[:12]}", args, write, None)

    def _tool_wp_set_seo(self, job: JobRow, args: Mapping[str, Any]) -> ToolOutcome:
        post_id = int(args["post_id"])
        meta = {"rank_math_title": str(args["title"]), "rank_math_description": str(args["description"]),
                "rank_math_focus_keyword": str(args["focus_keyword"])}

        def write(key: str) -> tuple[str, Mapping[str, Any]]:
            self.wp.set_seo(post_id, meta)
            return str(post_id), {"post_id": post_id, "ok": True}

        return self._ledgered(job, "wp_set_seo", f"seo:{post_id}:{_digest(meta)[:12]}", args, write, None)

    def _tool_wp_get_post(self, job: JobRow, args: Mapping[str, Any]) -> ToolOutcome:
        post_id = int(args["post_id"])
        for attempt in range(MAX_ATTEMPTS):
            try:
                post = self.wp.get_post(post_id)
            except (Definite, Indefinite) as err:
                if isinstance(err, Definite) and not err.retryable:
                    return ToolOutcome("failure", error=str(err))
                self.sleep(_wait(err, attempt))
                continue
            return ToolOutcome("success", {
                "post_id": post_id, "status": post.get("status"), "title": _raw(post.get("title")),
                "excerpt": _raw(post.get("excerpt")), "featured_media": post.get("featured_media"),
            })
        return ToolOutcome("pending", error=f"could not read post {post_id}")

    # -- the ledger protocol ---------------------------------------------------------------
    def _ledgered(self, job: JobRow, kind: str, role: str, args: Mapping[str, Any], write: Write, lookup: Lookup | None) -> ToolOutcome:
        key = f"{job.job_id}/v{job.task_version}/{role}"
        if not self.sg.key_by_business_action and self._call_id:  # the bug: one write per call, not per action
            key += f"@{self._call_id}"
        op = self.store.op(key) or self.store.prepare(key, job, kind, _digest(args))
        if op.state == "CONFIRMED":
            return ToolOutcome("success", op.receipt, operation_key=key)
        state = op.state
        for attempt in range(MAX_ATTEMPTS):
            if state in ("SENT", "UNKNOWN") and self.sg.reconcile_before_retry and lookup is not None:
                try:
                    found = lookup(key)
                except (Definite, Indefinite) as err:
                    return ToolOutcome("pending", error=f"reconciliation of {key} failed: {err}", operation_key=key)
                if found is not None:
                    self.store.set_op(key, "CONFIRMED", remote_id=found[0], receipt=found[1])
                    return ToolOutcome("success", found[1], operation_key=key)
            self.store.set_op(key, "SENT", attempt=True)
            try:
                remote_id, receipt = write(key)
            except Definite as err:
                self.store.set_op(key, "FAILED")
                state = "FAILED"
                if not err.retryable:
                    return ToolOutcome("failure", error=str(err), operation_key=key)
                self.sleep(_wait(err, attempt))
                continue
            except Indefinite as err:
                if err.status is not None and err.status >= 500 and not self.sg.server_error_is_unknown:
                    self.store.set_op(key, "FAILED")  # the bug: "the server failed, so nothing was written"
                    state = "FAILED"
                    self.sleep(_wait(err, attempt))
                    continue
                if not self.sg.unknown_is_not_failure:
                    self.store.set_op(key, "FAILED")
                    return ToolOutcome("failure", error=str(err), operation_key=key)
                self.store.set_op(key, "UNKNOWN")
                state = "UNKNOWN"
                if not self.sg.resolve_unknowns:
                    return ToolOutcome("failure", error=f"outcome unknown: {err}", operation_key=key)
                self.sleep(_wait(err, attempt))
                continue
            self.store.set_op(key, "CONFIRMED", remote_id=remote_id, receipt=receipt)
            return ToolOutcome("success", receipt, operation_key=key)
        if state == "FAILED":
            return ToolOutcome("failure", error=f"{kind} failed {MAX_ATTEMPTS} times", operation_key=key, retryable=True)
        return ToolOutcome("pending", error=f"{key} is still {state} after {MAX_ATTEMPTS} attempts", operation_key=key)

    def _lookup(self, kind: str, name: str) -> Lookup:
        """Find a write again: by its operation key through every page (``name`` is the title or file
        name, which only a control plane without that safeguard looks it up by)."""
        def lookup(key: str) -> tuple[str, Mapping[str, Any]] | None:
            if kind == "posts" and not self.sg.slug_is_not_identity:
                found = self.wp.find_by_slug(name)
            elif self.sg.reconcile_by_operation_key:
                found = self.wp.find(kind, key, all_pages=self.sg.page_all_lookups, exact=self.sg.exact_key_match)
            else:
                found = self.wp.find_by_name(kind, name)
            if not found:
                return None
            item = found[0]
            if kind == "media":
                return str(item["id"]), {"media_id": int(item["id"]), "source_url": item.get("source_url", "")}
            return str(item["id"]), {"post_id": int(item["id"]), "link": item.get("link", "")}
        return lookup


def _wait(err: Definite | Indefinite, attempt: int) -> float:
    return err.retry_after_s if err.retry_after_s is not None else BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)]


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def _raw(field: Any) -> Any:
    return field.get("raw", field.get("rendered")) if isinstance(field, dict) else field
