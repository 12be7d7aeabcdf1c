"""The article workload: the WordPress tools, their ledger, and what counts as done.

Side effects are keyed on the *business action*, never on the call: the images by their content
(``image:1``…``image:n`` in the order the agent first asks for them), the draft as ``article``, its
update and SEO as ``article:update`` / ``article:seo``. A re-issued action under a new call_id finds
its ledger entry and is answered from it (or carried on from where it stopped).

The life of a write: PREPARED (ledger entry) → SENT (committed before the request) → CONFIRMED on
a 2xx, FAILED on a definite refusal or a refused connection, UNKNOWN on anything that cannot prove
the write did not happen. An UNKNOWN create is looked up by its operation key before any retry;
updates (which set values) are simply sent again.

Every request that writes first asks the job's authority as it is now (``authority``): nothing goes
out for a cancelled or superseded job, nor for a tool the job no longer allows. A stopped job's
in-flight writes are settled by reads alone (``settle_by_reads``): creates by their operation key,
updates by reading the post back. A 401 from the site stops the use of its credential at once
(``CredentialRevoked``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from tests.candidates.strangers.polling.actions import Answer, Wait
from tests.candidates.strangers.polling.authority import Authority, ToolNotAllowed
from tests.candidates.strangers.polling.records import Call, Job, Operation
from tests.candidates.strangers.polling.store import Store
from tests.candidates.strangers.polling.wordpress import Lookup, Outcome, WordPress

__all__ = ["PHASES", "ROLE_TOOLS", "ArticleTools"]

MAX_ATTEMPTS = 5
PHASES = ("accepted", "session_started", "media_uploaded", "draft_created", "post_updated", "seo_set", "verified",
          "awaiting_approval", "published")
PUBLISH_KIND = "wp_publish"

_STRING = {"type": "string"}
_POST_ID = {"type": "integer"}
TOOL_SCHEMAS: dict[str, tuple[str, dict[str, Any]]] = {
    "wp_upload_media": ("Upload one image to the WordPress media library.", {
        "type": "object", "properties": {"filename": _STRING, "content_base64": _STRING, "mime_type": _STRING,
                                         "alt_text": _STRING},
        "required": ["filename", "content_base64", "mime_type", "alt_text"]}),
    "wp_create_draft": ("Create the article as a WordPress draft.", {
        "type": "object", "properties": {"title": _STRING, "content": _STRING, "excerpt": _STRING, "slug": _STRING},
        "required": ["title", "content"]}),
    "wp_update_post": ("Update the draft (excerpt, featured image, content).", {
        "type": "object", "properties": {"post_id": _POST_ID, "excerpt": _STRING, "featured_media": _POST_ID,
                                         "content": _STRING},
        "required": ["post_id"]}),
    "wp_set_seo": ("Set the Rank Math SEO title, description and focus keyword of the draft.", {
        "type": "object", "properties": {"post_id": _POST_ID, "title": _STRING, "description": _STRING,
                                         "focus_keyword": _STRING},
        "required": ["post_id", "title", "description", "focus_keyword"]}),
    "wp_get_post": ("Read the draft back.", {
        "type": "object", "properties": {"post_id": _POST_ID}, "required": ["post_id"]}),
}
_ROLE_OF_TOOL = {"wp_create_draft": "article", "wp_update_post": "article:update", "wp_set_seo": "article:seo"}
# The business steps of a finished article, with the tool that performs each (images: one step each).
ROLE_TOOLS = (("image", "wp_upload_media"), ("article", "wp_create_draft"), ("article:update", "wp_update_post"),
              ("article:seo", "wp_set_seo"))
_LOOKUP_KINDS = frozenset({"wp_upload_media", "wp_create_draft"})
_UPDATE_FIELDS = ("excerpt", "featured_media", "content")


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def _base_role(role: str) -> str:
    return role.split("#", 1)[0]


def _backoff(attempts: int, retry_after_s: float | None = None) -> float:
    if retry_after_s is not None:
        return retry_after_s
    return float(min(30, 2 ** max(0, attempts - 1)))


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def _shows(op: Operation, post: Mapping[str, Any]) -> bool | None:
    """Whether the post as read shows the entry's request applied; None when it cannot tell."""
    if op.kind == PUBLISH_KIND:
        return post.get("status") == "publish"
    if op.kind == "wp_update_post":
        fields = {k: op.request[k] for k in _UPDATE_FIELDS if k in op.request}
        return all((post.get(k) if k == "featured_media" else _text(post.get(k))) == v for k, v in fields.items())
    meta = post.get("meta")
    keys = {"rank_math_title": "title", "rank_math_description": "description", "rank_math_focus_keyword": "focus_keyword"}
    if not isinstance(meta, Mapping) or not all(k in meta for k in keys):
        return None
    return all(meta[k] == op.request.get(v) for k, v in keys.items())


def _text(value: object) -> str:
    """A WordPress field that may be rendered ({"raw", "rendered"}) or plain."""
    if isinstance(value, Mapping):
        return str(value.get("raw", value.get("rendered", "")))
    return "" if value is None else str(value)


class ArticleTools:
    """Performs the article workload's tool calls against WordPress, through the ledger."""

    def __init__(self, store: Store, wordpress: WordPress, authority: Authority, now: Callable[[], float], *,
                 look_up_before_resending: bool = True) -> None:
        self._store = store
        self._wp = wordpress
        self._authority = authority
        self._now = now
        # The one-bug variant (``create_buggy``) resends a create whose outcome it does not know.
        self._look_up_first = look_up_before_resending

    @staticmethod
    def tool_definitions(allowed: list[str]) -> list[dict[str, Any]]:
        """The function tools to give the agent: those the job allows and this control plane performs."""
        return [{"type": "function", "name": name, "description": TOOL_SCHEMAS[name][0],
                 "parameters": TOOL_SCHEMAS[name][1]} for name in allowed if name in TOOL_SCHEMAS]

    # -- performing a call -------------------------------------------------------------------

    def perform(self, job: Job, call: Call) -> Answer | Wait:
        """Carry the call's business action one step further; Answer once its result is known."""
        name, args = call.name, call.arguments
        if name not in TOOL_SCHEMAS:
            return Answer.fail(f"{name} is not performed by this control plane for this job")
        problem = self._invalid(job, name, args)
        if problem:
            return Answer.fail(problem)
        if name == "wp_get_post":
            return self._read_back(job, call)
        op = self._operation_for(job, call.call_id, name, args)
        try:
            return self._drive(job, call.call_id, op, args)
        except ToolNotAllowed as exc:
            op = self._reload(op)
            if op.state in ("PREPARED", "FAILED"):
                self._store.fail(op, str(exc), definitive=True)
            return Answer.fail(str(exc))

    def _invalid(self, job: Job, name: str, args: Mapping[str, Any]) -> str:
        required = TOOL_SCHEMAS[name][1]["required"]
        missing = [k for k in required if args.get(k) in (None, "")]
        if missing:
            return f"{name}: missing {', '.join(missing)}"
        if "post_id" in required:
            article = self.post_id(job)
            if _int(args.get("post_id")) is None or _int(args.get("post_id")) != article:
                return f"{name}: post {args.get('post_id')} is not this job's article"
        return ""

    def _operation_for(self, job: Job, call_id: str, name: str, args: Mapping[str, Any]) -> Operation:
        ops = self._store.operations(job)
        if name == "wp_upload_media":
            match_key = hashlib.sha256(str(args["content_base64"]).encode()).hexdigest()
            same = [op for op in ops if op.kind == name and op.match_key == match_key]
            role = f"image:{sum(1 for op in ops if op.kind == name) + 1}"
            request: dict[str, Any] = {k: args.get(k) for k in ("filename", "mime_type", "alt_text")}
            request["content_sha256"] = match_key
        elif name == "wp_create_draft":
            match_key = "article"
            same = [op for op in ops if op.kind == name]
            role = "article"
            request = {k: args.get(k) for k in ("title", "excerpt", "slug")}
            request["content_sha256"] = hashlib.sha256(str(args.get("content", "")).encode()).hexdigest()
        else:
            base = _ROLE_OF_TOOL[name]
            request = {k: v for k, v in args.items() if k in ("post_id", "title", "description", "focus_keyword",
                                                                *_UPDATE_FIELDS)}
            match_key = _digest(request)
            same = [op for op in ops if op.kind == name and op.match_key == match_key]
            earlier = sum(1 for op in ops if op.kind == name)
            role = base if earlier == 0 else f"{base}#{earlier + 1}"
        if same:
            return same[0]
        return self._store.prepare_operation(job, op_key=f"{job.job_id}:{job.task_version}:{role}", role=role,
                                             kind=name, match_key=match_key, request_hash=_digest(request),
                                             request=request, call_id=call_id)

    def _drive(self, job: Job, call_id: str, op: Operation, args: Mapping[str, Any]) -> Answer | Wait:
        if op.call_id != call_id:
            self._store.rebind_operation(op, call_id, fresh_attempts=op.state == "FAILED" and not op.definitive)
            op = self._reload(op)
        if op.state == "CONFIRMED":
            return Answer.ok(op.result or {})
        if op.state == "FAILED" and op.definitive:
            return Answer.fail(op.error or "failed")
        now = self._now()
        if op.not_before > now:
            return Wait(op.not_before - now)
        if op.state in ("SENT", "UNKNOWN") and op.kind in _LOOKUP_KINDS and self._look_up_first:
            waiting = self._look_up(op)
            if waiting is not None:
                return waiting
            op = self._reload(op)
            if op.state == "CONFIRMED":
                return Answer.ok(op.result or {})
        if op.attempts >= MAX_ATTEMPTS:
            if op.state == "FAILED":
                return Answer.fail(f"gave up after {op.attempts} attempts: {op.error}")
            return Answer.fail(f"outcome still unknown after {op.attempts} attempts: {op.error}")
        return self._send(job, op, args)

    def _reload(self, op: Operation) -> Operation:
        fresh = self._store.operation(op.op_key)
        assert fresh is not None
        return fresh

    def _look_up(self, op: Operation) -> Wait | None:
        """Settle a SENT/UNKNOWN create by its operation key: CONFIRMED if found, FAILED if provably absent."""
        lookup: Lookup = (self._wp.find_media(op.op_key) if op.kind == "wp_upload_media"
                          else self._wp.find_posts(op.op_key))
        if not lookup.ok:
            return Wait(_backoff(op.attempts, lookup.retry_after_s), worked=False)
        if lookup.found:
            found = lookup.found[0]
            self._store.confirm(op, str(found["id"]), self._output(op.kind, found, op.request))
        else:
            self._store.fail(op, f"not created ({op.error or 'no answer'})", definitive=False, not_before=op.not_before)
        return None

    def _send(self, job: Job, op: Operation, args: Mapping[str, Any]) -> Answer | Wait:
        self._authority.before_write(job.key, op.kind)
        self._wp.ready()
        self._store.mark_sent(op)
        attempts = op.attempts + 1
        outcome = self._request(op, args)
        now = self._now()
        if outcome.reading == "revoked":
            self._store.fail(op, outcome.error, definitive=True)
            raise self._wp.refused(outcome)
        if outcome.reading == "ok":
            body = outcome.body if isinstance(outcome.body, Mapping) else {}
            result = self._output(op.kind, body, args)
            self._store.confirm(op, str(result.get("media_id", result.get("post_id"))), result)
            return Answer.ok(result)
        if outcome.reading == "definite":
            self._store.fail(op, outcome.error, definitive=True)
            return Answer.fail(outcome.error)
        delay = _backoff(attempts, outcome.retry_after_s)
        if outcome.reading == "not_sent":
            self._store.fail(op, outcome.error, definitive=False, not_before=now + delay)
            if attempts >= MAX_ATTEMPTS:
                return Answer.fail(f"gave up after {attempts} attempts: {outcome.error}")
            return Wait(delay, worked=True)
        if outcome.status is None and outcome.retry_after_s is None:
            delay = 0.0  # a lost response: look it up right away
        self._store.mark_unknown(op, outcome.error, not_before=now + delay)
        return Wait(delay, worked=True)

    def _request(self, op: Operation, args: Mapping[str, Any]) -> Outcome:
        if op.kind == "wp_upload_media":
            return self._wp.upload_media(filename=str(args["filename"]), content_base64=str(args["content_base64"]),
                                         mime_type=str(args["mime_type"]), alt_text=str(args.get("alt_text", "")),
                                         operation_key=op.op_key)
        if op.kind == "wp_create_draft":
            return self._wp.create_draft(title=str(args["title"]), content=str(args["content"]),
                                         excerpt=str(args.get("excerpt", "")), slug=str(args.get("slug", "")),
                                         operation_key=op.op_key)
        post_id = _int(args.get("post_id"))
        assert post_id is not None
        if op.kind == "wp_update_post":
            return self._wp.update_post(post_id, {k: args[k] for k in _UPDATE_FIELDS if k in args})
        return self._wp.set_seo(post_id, title=str(args["title"]), description=str(args["description"]),
                                focus_keyword=str(args["focus_keyword"]))

    @staticmethod
    def _output(kind: str, body: Mapping[str, Any], args: Mapping[str, Any]) -> dict[str, Any]:
        if kind == "wp_upload_media":
            return {"media_id": int(body["id"]), "source_url": str(body.get("source_url", ""))}
        if kind == "wp_create_draft":
            return {"post_id": int(body["id"]), "link": str(body.get("link", ""))}
        if kind == "wp_update_post":
            out: dict[str, Any] = {"post_id": int(body.get("id", args.get("post_id", 0)))}
            for key in ("status", "featured_media"):
                if body.get(key) is not None:
                    out[key] = body[key]
            return out
        return {"post_id": _int(args.get("post_id")), "ok": True}

    def _read_back(self, job: Job, call: Call) -> Answer | Wait:
        """A read has no ledger entry: its attempts are counted on the call."""
        now = self._now()
        if call.not_before > now:
            return Wait(call.not_before - now)
        post_id = _int(call.arguments["post_id"])
        assert post_id is not None
        outcome = self._wp.get_post(post_id)
        if outcome.reading == "ok" and isinstance(outcome.body, Mapping):
            body = outcome.body
            self._store.set_read_post(job, post_id)
            return Answer.ok({"post_id": post_id, "status": body.get("status"), "title": _text(body.get("title")),
                              "link": body.get("link"), "featured_media": body.get("featured_media"),
                              "excerpt": _text(body.get("excerpt"))})
        if outcome.reading == "definite" or call.attempts + 1 >= MAX_ATTEMPTS:
            return Answer.fail(outcome.error or "the post could not be read")
        delay = _backoff(call.attempts + 1, outcome.retry_after_s)
        self._store.note_call_attempt(call, now + delay)
        return Wait(delay, worked=True)

    # -- the ledger as a whole ---------------------------------------------------------------

    def reconcile(self, job: Job) -> Wait | None:
        """Resolve every SENT/UNKNOWN entry (the world has had its say); None when none is left."""
        for op in self._store.operations(job):
            if op.state not in ("SENT", "UNKNOWN"):
                continue
            if op.kind in _LOOKUP_KINDS:
                waiting = self._look_up(op)
                if waiting is not None:
                    return waiting
                continue
            now = self._now()
            if op.attempts >= 2 * MAX_ATTEMPTS:
                continue  # reported as it stands: UNKNOWN, never guessed
            if op.not_before > now:
                return Wait(op.not_before - now)
            if not self._authority.tool_allowed(job.key, op.kind):
                waiting = self.settle_by_read(job, op)  # no longer ours to send again: read what happened
                if waiting is not None:
                    return waiting
                continue
            # An update sets values: sending the recorded request again settles it.
            result = self._send(job, op, dict(op.request))
            if isinstance(result, Wait):
                return result
        return None

    def settle_by_reads(self, job: Job) -> Wait | None:
        """A stopped job's ledger, settled without a single write: never-sent entries are FAILED,
        lost creates are looked up by key, updates are read back. None once nothing is left to read."""
        for op in self._store.operations(job):
            if op.state == "PREPARED":
                self._store.fail(op, "never sent: the job was stopped", definitive=True)
            elif op.state in ("SENT", "UNKNOWN"):
                waiting = self._look_up(op) if op.kind in _LOOKUP_KINDS else self.settle_by_read(job, op)
                if waiting is not None:
                    return waiting
        return None

    def settle_by_read(self, job: Job, op: Operation) -> Wait | None:
        """Settle an update-like entry by reading the post: CONFIRMED when it shows what was sent."""
        post_id = _int(op.request.get("post_id")) or self.post_id(job)
        if post_id is None:
            self._store.fail(op, "no post to read back", definitive=False)
            return None
        outcome = self._wp.get_post(post_id)
        if outcome.reading != "ok" or not isinstance(outcome.body, Mapping):
            if outcome.reading == "definite":
                self._store.fail(op, f"the post cannot be read: {outcome.error}", definitive=False,
                                 not_before=op.not_before)
                return None
            return Wait(_backoff(op.attempts, outcome.retry_after_s))
        shows = _shows(op, outcome.body)
        if shows is True:
            self._store.confirm(op, str(post_id), self._output(op.kind, outcome.body, op.request))
        elif shows is False:
            self._store.fail(op, f"not applied ({op.error or 'no answer'})", definitive=False, not_before=op.not_before)
        return None

    def post_id(self, job: Job) -> int | None:
        for op in self._store.operations(job):
            if op.kind == "wp_create_draft" and op.state == "CONFIRMED":
                return _int(op.remote_id)
        return None

    def _confirmed(self, job: Job) -> dict[str, Operation]:
        out: dict[str, Operation] = {}
        for op in self._store.operations(job):
            if op.state == "CONFIRMED":
                out.setdefault(_base_role(op.role), op)
        return out

    def _image_count(self, job: Job) -> int:
        images = _int(job.inputs.get("images"))
        return images if images is not None else 0

    def media_ids(self, job: Job) -> list[int]:
        confirmed = self._confirmed(job)
        ids = [_int(confirmed[f"image:{i}"].remote_id) for i in range(1, self._image_count(job) + 1)
               if f"image:{i}" in confirmed]
        return [i for i in ids if i is not None]

    def complete(self, job: Job) -> bool:
        """Every business step of the job is CONFIRMED in the ledger, and nothing is left unsettled."""
        confirmed = self._confirmed(job)
        needed = {f"image:{i}" for i in range(1, self._image_count(job) + 1)} | {"article", "article:update",
                                                                                   "article:seo"}
        unsettled = [op for op in self._store.operations(job) if op.state in ("SENT", "UNKNOWN")]
        return needed <= set(confirmed) and not unsettled

    def definite_failure(self, job: Job) -> Operation | None:
        failed = [op for op in self._store.operations(job)
                  if op.state == "FAILED" and op.definitive and op.kind != PUBLISH_KIND]
        return failed[0] if failed else None

    def missing_tool(self, job: Job) -> str | None:
        """A step the article still lacks whose tool the job does not allow (now): it cannot be finished."""
        confirmed = self._confirmed(job)
        allowed = set(job.allowed_tools)
        for role, tool in ROLE_TOOLS:
            roles = [f"image:{i}" for i in range(1, self._image_count(job) + 1)] if role == "image" else [role]
            if any(r not in confirmed for r in roles) and tool not in allowed:
                return tool
        return None

    def published(self, job: Job) -> bool:
        return any(op.kind == PUBLISH_KIND and op.state == "CONFIRMED" for op in self._store.operations(job))

    def recovery_summary(self, job: Job) -> str:
        done: dict[str, dict[str, int]] = {}
        for role, op in self._confirmed(job).items():
            remote = _int(op.remote_id)
            if remote is None:
                continue
            done[role] = {"media_id": remote} if role.startswith("image:") else {"post_id": remote}
        post = self.post_id(job)
        if post is not None and job.read_post_id == post:
            done["article:read"] = {"post_id": post}
        return "RECOVERY SUMMARY\n" + json.dumps({"done": done}, sort_keys=True)

    def phase(self, job: Job) -> str:
        if self.published(job):
            return "published"
        confirmed = self._confirmed(job)
        post = self.post_id(job)
        evidence = {
            "accepted": True,
            "session_started": job.session_id is not None,
            "media_uploaded": all(f"image:{i}" in confirmed for i in range(1, self._image_count(job) + 1)),
            "draft_created": post is not None,
            "post_updated": "article:update" in confirmed,
            "seo_set": "article:seo" in confirmed,
            "verified": post is not None and job.read_post_id == post,
        }
        if job.article_done:
            return "awaiting_approval"
        reached = "accepted"
        for name in PHASES[:PHASES.index("awaiting_approval")]:
            if not evidence[name]:
                break
            reached = name
        return reached
