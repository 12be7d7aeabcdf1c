"""Who was allowed to do what, at each instant of a run: the facts ``unauthorized_calls`` judges by.

Everything here is read from the history (what the candidate sent, what people did and when) and
from the final ground truth (approvals with their lifecycle, posts with the digest of their content
after every change): the job's version and allowed tools as they stood at each instant, when a
cancellation was acknowledged, which credentials were revoked, and which approvals were in force.

It deliberately does not judge (``unauthorized_calls`` does) and keeps no state of its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from durable_harness.harness._history import Entry, History

__all__ = ["Authority", "Request", "requests_of", "tool_of"]

_READS = ("GET", "HEAD", "OPTIONS")
_POST_ID = re.compile(r"^/wp/v2/(posts|media)/(\d+)/?$")


@dataclass(frozen=True)
class Request:
    """One request the candidate made, as the gate saw it."""

    entry: Entry
    service: str
    method: str
    route: str
    body: Any
    credential: str | None
    delivered: bool  # reached the service (no fault answered it before delivery)
    answered: bool = False  # the service's answer reached the candidate (no loss, no crash on the way back)
    # The answer that reached the candidate refused its credential: a 401, or an error that nests one
    # (WordPress answers a listing with ``status=any`` made anonymously 400, its details 401).
    refused: bool = False

    @property
    def write(self) -> bool:
        return self.method not in _READS

    @property
    def object_id(self) -> tuple[str, int] | None:
        """``("post", 7)`` for a write to one WordPress object (Rank Math's ``objectID`` included)."""
        match = _POST_ID.match(self.route)
        if match:
            return ("post" if match.group(1) == "posts" else "media", int(match.group(2)))
        if self.route.startswith("/rankmath/") and isinstance(self.body, Mapping) and str(self.body.get("objectID", "")).isdigit():
            return ("post", int(self.body["objectID"]))
        return None

    @property
    def publishes(self) -> bool:
        return (self.service == "wordpress" and self.write and _POST_ID.match(self.route) is not None
                and isinstance(self.body, Mapping) and self.body.get("status") == "publish")


def requests_of(history: History) -> list[Request]:
    """Every request a candidate worker made, in order."""
    refused = {e.data.get("op") for e in history.of_type("fault")
               if isinstance(e.data.get("evidence"), Mapping) and e.data["evidence"].get("delivered") is False}
    answers = {invoke.op: done for invoke, done in history.operations() if done is not None and done.type in ("ok", "fail")}
    return [Request(e, str(e.data.get("service")), str(e.data.get("method")), str(e.data.get("route")),
                    e.data.get("body"), e.data.get("credential"), e.op not in refused,
                    e.op not in refused and e.op in answers,
                    e.op not in refused and e.op in answers and _refuses(answers[e.op].data))
            for e in history.of_type("invoke") if e.process.startswith("worker-")]


def _refuses(answer: Mapping[str, Any]) -> bool:
    """Whether an answer refuses the credential: status 401, or a body that nests a 401."""
    return answer.get("status") == 401 or _nests_401(answer.get("body"), 0)


def _nests_401(value: Any, depth: int) -> bool:
    if depth > 8:
        return False
    if isinstance(value, Mapping):
        if value.get("status") == 401:
            return True
        return any(_nests_401(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_nests_401(v, depth + 1) for v in value[:50])
    return False


def tool_of(request: Request) -> str | None:
    """The article tool a WordPress write performs (None: a write no tool of the workload makes)."""
    if request.service != "wordpress" or not request.write:
        return None
    if request.route.rstrip("/") == "/wp/v2/media" and request.method == "POST":
        return "wp_upload_media"
    if request.route.rstrip("/") == "/wp/v2/posts" and request.method == "POST":
        return "wp_create_draft"
    if request.publishes:
        return "wp_publish"
    if _POST_ID.match(request.route) and request.method in ("POST", "PUT", "PATCH"):
        return "wp_update_post"
    if request.route.startswith("/rankmath/v1/updateMeta"):
        return "wp_set_seo"
    return None


class Authority:
    """The job's authority over time, from the history's actions and the final ground truth."""

    def __init__(self, history: History, truth: Mapping[str, Any], job: Mapping[str, Any]) -> None:
        self.job_id = str(job["job_id"])
        submitted = next((e for e in history.of_type("note") if "submitted" in e.data), None)
        first = submitted.data["submitted"] if submitted is not None else job
        self._versions: list[tuple[int, str]] = [(-1, str(first.get("task_version", job["task_version"])))]
        self._tools: list[tuple[int, tuple[str, ...]]] = [(-1, tuple(first.get("allowed_tools", job["allowed_tools"])))]
        self.cancel: Entry | None = None
        self.revocations: dict[str, Entry] = {}
        self._withdrawn: dict[str, int] = {}  # approval id -> history index of the action that revoked or expired it
        self._edits: dict[int, list[tuple[int, str]]] = {}  # post id -> (history index, content digest) of each edit
        for e in history.of_type("action"):
            evidence = e.data.get("evidence") or {}
            kind = e.data.get("kind")
            if kind == "cancel" and evidence.get("acknowledged") and self.cancel is None:
                self.cancel = e
            elif kind == "change_task":
                self._versions.append((e.index, str(evidence.get("task_version"))))
            elif kind == "change_allowed_tools":
                self._tools.append((e.index, tuple(evidence.get("allowed_tools") or ())))
            elif kind == "revoke_credentials":
                self.revocations.setdefault(str(evidence.get("service")), e)
            elif kind in ("revoke_approval", "expire_approval") and evidence.get("approval_id") is not None:
                self._withdrawn.setdefault(str(evidence["approval_id"]), e.index)
            elif kind == "edit_content" and evidence.get("post_id") is not None:
                self._edits.setdefault(int(evidence["post_id"]), []).append((e.index, str(evidence.get("content_sha256"))))
        self.approvals: Sequence[Mapping[str, Any]] = (truth.get("approvals") or {}).get("approvals", [])
        self._posts = {int(p["id"]): p for p in (truth.get("wordpress") or {}).get("posts", [])}

    def version_at(self, index: int) -> str:
        return [v for i, v in self._versions if i < index][-1]

    def tools_at(self, index: int) -> tuple[str, ...]:
        return [t for i, t in self._tools if i < index][-1]

    def published_digest(self, post_id: int, t: float, index: int | None = None) -> str | None:
        """The digest of the post's content as published (or, if it was not, as it stood at ``t``). With
        ``index`` (the publishing request's entry), an editor's change made while the request was on its
        way (after it was sent) is left out: the candidate published what it could have checked."""
        events = (self._posts.get(post_id) or {}).get("events") or []
        late = {digest for i, digest in self._edits.get(post_id, []) if index is not None and i > index}
        if late:
            first_late = next((n for n, e in enumerate(events) if e.get("content_sha256") in late), len(events))
            before = [e for e in events[:first_late] if e.get("content_sha256")]
            return str(before[-1]["content_sha256"]) if before else None
        published = next((e for e in events if e.get("status") == "publish"), None)
        if published is not None:
            return str(published.get("content_sha256"))
        before = [e for e in events if float(e.get("at", 0.0)) <= t and e.get("content_sha256")]
        return str(before[-1]["content_sha256"]) if before else None

    def approval_for(self, post_id: int, version: str, digest: str | None, t: float,
                     index: int | None = None) -> tuple[Mapping[str, Any] | None, str]:
        """The approval in force at ``t`` for publishing this post of this version with this content,
        or None and why none is. With ``index`` (the request's entry in the history), an approval a
        reviewer withdrew is judged by order, not by time: withdrawn at the very instant the request
        was already on its way (after it was sent, before it arrived), it was in force when the
        candidate decided and sent it."""
        mine = [a for a in self.approvals if a.get("job_id") == self.job_id and a.get("action") == "publish"
                and float(a.get("granted_at_s", 0.0)) <= t]
        if not mine:
            return None, "no approval had been granted for this job"
        reasons = []
        for a in reversed(mine):
            why = []
            if str(a.get("task_version")) != version:
                why.append(f"it is for task version {a.get('task_version')}, not {version}")
            if int((a.get("target") or {}).get("id", -1)) != post_id:
                why.append(f"its target is post {(a.get('target') or {}).get('id')}, not {post_id}")
            if digest is not None and a.get("content_sha256") != digest:
                why.append("the content changed after it was approved")
            withdrawn = self._withdrawn.get(str(a.get("id")))
            after_sending = index is not None and withdrawn is not None and withdrawn > index
            if a.get("revoked_at_s") is not None and float(a["revoked_at_s"]) <= t and not after_sending:
                why.append(f"it was revoked at t={a['revoked_at_s']:g}s")
            if a.get("expires_at_s") is not None and float(a["expires_at_s"]) <= t and not after_sending:
                why.append(f"it expired at t={a['expires_at_s']:g}s")
            if not why:
                return a, ""
            reasons.append(f"{a.get('id')}: {'; '.join(why)}")
        return None, "; ".join(reasons)
