"""Side effects on WordPress, through the outbox: write the row, send, confirm — or read back.

:meth:`Effects.perform` carries one business action (an :class:`Action`) as far as it can now:

1. the outbox row is written PREPARED (once per operation key);
2. an open row (SENT or UNKNOWN: a send whose outcome nobody saw) is **read back** first — the
   post or medium by its operation key, the post's fields for an update, its status for a publish
   — and the world decides: found, the row is CONFIRMED with the found id; provably absent, the
   row is FAILED (not definitively) and may be sent again; a read that fails proves nothing;
3. the authority is checked right before the send (the caller's ``guard``: not cancelled, still
   the newest version, lease held and renewed, tool allowed, credential not revoked), the row is
   committed SENT, and the request leaves with the lease's fencing token;
4. the answer settles the row: 2xx CONFIRMED; a definite 4xx FAILED for good; a 401 marks the
   credential revoked; an unknown outcome UNKNOWN, and the loop reads it back before any resend.

The Rank Math SEO values cannot be read back through any documented endpoint; the call sets values,
so its unknown outcome is settled by sending it again (harmless), never while the job is cancelled.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Callable

from .outbox import OPEN_STATES, Outbox
from .safeguards import Safeguards
from .store import dumps
from .wordpress import Answer, WordPress

MAX_ATTEMPTS = 5


@dataclass
class Action:
    """One business action of a job version."""

    job_id: str
    version: str
    role: str
    kind: str
    request: dict[str, Any]
    is_write: bool = True

    @property
    def key(self) -> str:
        return f"{self.job_id}/v{self.version}/{self.role}"

    @property
    def request_hash(self) -> str:
        return hashlib.sha256(dumps(self.request).encode("utf-8")).hexdigest()


@dataclass
class Result:
    """Where an action stands after :meth:`Effects.perform`."""

    status: str  # done | failed | revoked | fenced | refused | pending
    receipt: dict[str, Any] = field(default_factory=dict)
    error: str = ""


class Effects:
    """Performs and reconciles WordPress side effects."""

    def __init__(self, wp: WordPress, outbox: Outbox, clock: Any, safeguards: Safeguards) -> None:
        self.wp = wp
        self.outbox = outbox
        self.clock = clock
        self.safeguards = safeguards

    # --- reading the world back ---------------------------------------------------------------
    def read_back(self, row: dict[str, Any]) -> tuple[str, Answer, dict[str, Any]]:
        """What the world shows of an open row: ``applied`` (with a receipt), ``absent``,
        ``resend`` (a set-value call that cannot be read) or ``inconclusive``."""
        kind, request = row["kind"], Outbox.request(row)
        if kind in ("wp_upload_media", "wp_create_draft"):
            collection = "media" if kind == "wp_upload_media" else "posts"
            answer, found = self.wp.find_by_key(collection, row["op_key"])
            if not answer.ok:
                return "inconclusive", answer, {}
            if not found:
                return "absent", answer, {}
            item = min(found, key=lambda i: int(i.get("id", 0)))
            return "applied", answer, self._receipt(kind, item, request)
        if kind in ("wp_update_post", "wp_publish"):
            answer = self.wp.get_post(int(request["post_id"]))
            if answer.kind == "definite" and answer.status == 404:
                return "absent", answer, {}
            if not answer.ok or not isinstance(answer.body, dict):
                return "inconclusive", answer, {}
            if kind == "wp_publish":
                applied = answer.body.get("status") == "publish"
            else:
                applied = _fields_match(answer.body, request)
            return ("applied" if applied else "absent"), answer, self._receipt(kind, answer.body, request)
        if kind == "wp_set_seo":
            return "resend", Answer("ok"), {}
        return "absent", Answer("ok"), {}

    def settle(self, row: dict[str, Any], *, may_resend: bool = True) -> str:
        """Read an open row back and record what the world shows; returns the row's new state
        (or ``revoked``)."""
        verdict, answer, receipt = self.read_back(row)
        if answer.kind == "revoked":
            return "revoked"
        if verdict == "applied":
            self.outbox.confirm(row["op_key"], receipt.get("post_id", receipt.get("media_id")), receipt)
            return "CONFIRMED"
        if verdict == "absent":
            self.outbox.mark_failed(row["op_key"], "not applied (read back)", definite=False,
                                    attempt=row["attempt"])
            return "FAILED"
        if verdict == "resend" and may_resend:
            self.outbox.mark_failed(row["op_key"], "unreadable set-value call: send it again",
                                    definite=False, attempt=row["attempt"])
            return "FAILED"
        if verdict == "resend" and row["state"] == "SENT":
            # cannot be read, may not be sent again (cancelled): it stays as it was, UNKNOWN
            self.outbox.mark_unknown(row["op_key"], row["attempt"], "cannot be read back")
            return "UNKNOWN"
        return row["state"]

    # --- carrying an action out -----------------------------------------------------------------
    def perform(self, action: Action, fence: str, guard: Callable[[], str | None]) -> Result:
        row = self.outbox.prepare(job_id=action.job_id, version=action.version, role=action.role,
                                  kind=action.kind, is_write=action.is_write,
                                  request=action.request, request_hash=action.request_hash,
                                  op_key=action.key)
        if not action.is_write:
            return self._read(action, row, guard)
        last_error = ""
        first = True
        for attempt in range(MAX_ATTEMPTS):
            row = self.outbox.get(action.key) or row
            if row["state"] == "CONFIRMED":
                return Result("done", Outbox.receipt(row))
            if row["state"] == "FAILED" and row["definite"]:
                return Result("failed", error=row["error"] or "refused")
            if row["state"] in OPEN_STATES:
                if first and row["state"] == "SENT" and not self.safeguards.read_back_after_restart:
                    # the variant without this safeguard takes a SENT row it finds as unsent
                    self.outbox.mark_failed(action.key, "assumed unsent", definite=False)
                elif self.settle(row) == "revoked":
                    return Result("revoked", error="credential refused")
                row = self.outbox.get(action.key) or row
                if row["state"] == "CONFIRMED":
                    return Result("done", Outbox.receipt(row))
                if row["state"] in OPEN_STATES:
                    last_error = "read-back inconclusive"
                    self._backoff(attempt, None)
                    continue
            first = False
            refusal = guard()
            if refusal:
                return Result("refused", error=refusal)
            sent = self.outbox.mark_sent(action.key, self.clock.now())
            if sent is None:
                continue
            answer = self._send(action, fence)
            outcome = self._record(action, sent, answer)
            if outcome is not None:
                return outcome
            last_error = answer.describe()
            self._backoff(attempt, answer.retry_after)
        return Result("pending", error=last_error or "not settled yet")

    def _record(self, action: Action, attempt: int, answer: Answer) -> Result | None:
        if answer.ok and isinstance(answer.body, dict):
            receipt = self._receipt(action.kind, answer.body, action.request)
            self.outbox.confirm(action.key, receipt.get("post_id", receipt.get("media_id")), receipt)
            return Result("done", receipt)
        if answer.kind == "revoked":
            self.outbox.mark_failed(action.key, answer.describe(), definite=True, attempt=attempt)
            return Result("revoked", error=answer.describe())
        if answer.kind == "definite":
            self.outbox.mark_failed(action.key, answer.describe(), definite=True, attempt=attempt)
            return Result("failed", error=answer.describe())
        if answer.kind == "fenced":
            return Result("fenced", error=answer.describe())  # the new holder reconciles it
        if answer.kind == "down":
            self.outbox.mark_failed(action.key, answer.describe(), definite=False, attempt=attempt)
            return None
        self.outbox.mark_unknown(action.key, attempt, answer.describe())
        return None

    def _send(self, action: Action, fence: str) -> Answer:
        req = action.request
        if action.kind == "wp_upload_media":
            return self.wp.upload_media(action.key, req, fence)
        if action.kind == "wp_create_draft":
            return self.wp.create_draft(action.key, req, fence)
        if action.kind == "wp_update_post":
            fields = {k: v for k, v in req.items() if k != "post_id"}
            return self.wp.update_post(int(req["post_id"]), fields, fence)
        if action.kind == "wp_set_seo":
            return self.wp.set_seo(int(req["post_id"]), req, fence)
        if action.kind == "wp_publish":
            return self.wp.update_post(int(req["post_id"]), {"status": "publish"}, fence)
        raise ValueError(f"no such write: {action.kind}")

    def _read(self, action: Action, row: dict[str, Any], guard: Callable[[], str | None]) -> Result:
        for attempt in range(MAX_ATTEMPTS):
            refusal = guard()
            if refusal:
                return Result("refused", error=refusal)
            answer = self.wp.get_post(int(action.request["post_id"]))
            if answer.ok and isinstance(answer.body, dict):
                receipt = self._receipt(action.kind, answer.body, action.request)
                self.outbox.confirm(action.key, receipt["post_id"], receipt)
                return Result("done", receipt)
            if answer.kind in ("revoked", "definite"):
                return Result("revoked" if answer.kind == "revoked" else "failed",
                              error=answer.describe())
            self._backoff(attempt, answer.retry_after)
        return Result("pending", error="the read did not come back")

    def _backoff(self, attempt: int, retry_after: float | None) -> None:
        delay = min(2.0 * (2 ** attempt), 30.0)
        if retry_after is not None:
            delay = max(delay, retry_after)
        self.clock.sleep(delay)

    @staticmethod
    def _receipt(kind: str, body: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
        if kind == "wp_upload_media":
            return {"media_id": int(body["id"]), "source_url": body.get("source_url")}
        if kind == "wp_create_draft":
            return {"post_id": int(body["id"]), "link": body.get("link")}
        if kind == "wp_set_seo":
            return {"post_id": int(request["post_id"]), "ok": True}
        post_id = int(body.get("id") or request["post_id"])
        if kind == "wp_get_post":
            title = body.get("title")
            return {"post_id": post_id, "status": body.get("status"),
                    "title": title.get("raw") if isinstance(title, dict) else title,
                    "featured_media": body.get("featured_media")}
        if kind == "wp_publish":
            return {"post_id": post_id, "status": "publish"}
        return {"post_id": post_id}


def _fields_match(post: dict[str, Any], request: dict[str, Any]) -> bool:
    """Whether the post shows every field an update set."""
    for name, wanted in request.items():
        if name == "post_id":
            continue
        have = post.get(name)
        if isinstance(have, dict):
            have = have.get("raw", have.get("rendered"))
        if name == "featured_media":
            if int(have or 0) != int(wanted or 0):
                return False
        elif (have or "") != (wanted or ""):
            return False
    return True
