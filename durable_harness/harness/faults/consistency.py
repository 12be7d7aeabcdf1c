"""Eventual consistency of the sessions API, as its SDK documents it, at the gate.

* ``listing_lag``: "new sessions and metadata updates may take time to appear in filtered
  results" (the SDK's docstring of ``sessions.list``): a session created, or whose metadata was
  updated, less than ``window_s`` ago is left out of a listing filtered by metadata, and so is a
  session no filtered listing has left out since it was made or updated, however long ago: every
  design that looks its session up meets the lag once, whatever time its restart or its own
  runtime took (a process candidate's real time counts ``scale`` times over). A page is filled
  from the next ones, as an index without those sessions answers it.
* ``stale_read``: "a 202 confirms acceptance, not durable completion": for ``window_s`` after an
  input was accepted, and at least at the first read after it, a read of the session returns the
  session as it was before that input (a ``requires_action`` already answered, a turn not yet
  resumed), and so does a read of its items or its turns (each read, with its query, as it last
  answered before the input). Its trigger names the sessions API (``route: "*"``): it remembers
  each read's last answer and each session's last input.

Either fires only when it changed an answer (the evidence says what it hid or held back); a request
that gave it nothing to change (a listing with no new session, a read with no input before it) was
no chance for it (``Skip``), so a run whose candidate never looked is *not reached*, never unknown.
Defaults are small, realistic windows.
"""

from __future__ import annotations

import json
import re
from typing import Any

from durable_harness.harness.faults._base import Action, FaultContext, Rewrite, Skip
from durable_harness.harness.faults._registry import fault_kind
from durable_harness.harness.faults._request_fault import RequestFault
from durable_harness.wire import Request, Response

__all__ = ["ListingLag", "StaleRead"]

_SESSION = re.compile(r"^/agents/sessions/([^/]+)/?$")
# What a read of a session shows: the session itself, its items, its turns (each turn and its items).
_READS = re.compile(r"^/agents/sessions/([^/]+)(?:/(?:items|turns(?:/[^/]+(?:/items)?)?))?/?$")
_EVENTS = re.compile(r"^/agents/sessions/([^/]+)/events/?$")


def _json(response: Response | None) -> Any:
    if response is None or response.status >= 300 or response.stream is not None:
        return None
    try:
        return json.loads(response.body)
    except ValueError:
        return None


def _has_metadata(request: Request) -> bool:
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        return False
    return isinstance(body, dict) and "metadata" in body


def _with_body(response: Response, body: Any) -> Response:
    return Response(response.status, response.headers, json.dumps(body, separators=(",", ":")).encode())


@fault_kind("listing_lag")
class ListingLag(RequestFault):
    point = "after"
    params_schema = {"window_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 3600, "default": 10}}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._hidden_once: set[str] = set()  # sessions some filtered listing has left out already
        self._updated: dict[str, float] = {}  # session id -> when its metadata was last changed (Unix s)

    def after(self, ctx: FaultContext) -> Action | None:
        """Every request passes here: a metadata update of a session is noted (it lags like a new
        session: out of filtered listings for the window, and at least once)."""
        update = _SESSION.match(ctx.route)
        if (update and ctx.request.method == "POST" and ctx.response is not None and ctx.response.status < 300
                and _has_metadata(ctx.request)):
            self._updated[update.group(1)] = float(ctx.now_unix)
            self._hidden_once.discard(update.group(1))
        return super().after(ctx)

    def action(self, ctx: FaultContext) -> Action | None:
        if ctx.request.method != "GET" or not any(k.startswith("metadata") for k, _ in ctx.request.query):
            return Skip()
        body = _json(ctx.response)
        if not isinstance(body, dict) or not isinstance(body.get("data"), list):
            return Skip()
        window = float(self.param("window_s"))

        def lags(session: Any) -> bool:
            sid = str(session.get("id"))
            changed = max(float(session.get("created_at") or 0), self._updated.get(sid, 0.0))
            return ctx.now_unix - changed < window or sid not in self._hidden_once

        hidden = [str(s.get("id")) for s in body["data"] if lags(s)]
        if not hidden:
            return Skip()
        data, has_more, more_hidden = self._fill(ctx, body, lags)
        hidden += more_hidden
        self._hidden_once.update(hidden)
        lagged = {**body, "data": data, "has_more": has_more,
                  "first_id": data[0]["id"] if data else None, "last_id": data[-1]["id"] if data else None}
        assert ctx.response is not None
        return Rewrite(_with_body(ctx.response, lagged), {"hidden_sessions": hidden, "window_s": window})

    @staticmethod
    def _fill(ctx: FaultContext, body: dict[str, Any], lags: Any) -> tuple[list[Any], bool, list[str]]:
        """The page as an index without the lagging sessions answers it: as many visible sessions
        as the page had room for, read on from the next pages, and ``has_more`` only if visible
        ones are left. (A page made only of lagging sessions is never empty with ``has_more``: the
        SDK's pager stops at an empty page.)"""
        limit = len(body["data"])  # a page with more to come is a full one: its length is the limit asked for
        data = [s for s in body["data"] if not lags(s)]
        page, more_hidden = body, []
        for _ in range(1000):  # bounded: each round reads one page further
            if len(data) > limit or not page.get("has_more") or ctx.read_again is None or not page["data"]:
                break
            after = str(page["data"][-1].get("id"))
            query = [(k, v) for k, v in ctx.request.query if k != "after"] + [("after", after)]
            again = ctx.read_again(Request(ctx.request.method, ctx.request.path, tuple(query), ctx.request.headers))
            page = _json(again)
            if not isinstance(page, dict) or not isinstance(page.get("data"), list):
                break
            more_hidden += [str(s.get("id")) for s in page["data"] if lags(s)]
            data += [s for s in page["data"] if not lags(s)]
        return data[:limit], len(data) > limit or bool(page.get("has_more")) and len(data) == limit, more_hidden


@fault_kind("stale_read")
class StaleRead(RequestFault):
    point = "after"
    params_schema = {"window_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 3600, "default": 2}}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # (session id, the read: its route and query) -> the body of its last answer
        self._last_read: dict[tuple[str, str], Any] = {}
        # the same key -> (input accepted at, body before it, whether a read has been held back since)
        self._stale: dict[tuple[str, str], tuple[float, Any, bool]] = {}

    def action(self, ctx: FaultContext) -> Action | None:
        events = _EVENTS.match(ctx.route)
        if events and ctx.request.method == "POST" and ctx.response is not None and ctx.response.status < 300:
            sid = events.group(1)  # every read of this session shows it as it was, for a while
            for key, body in self._last_read.items():
                if key[0] == sid:
                    self._stale[key] = (ctx.now_s, body, False)
            return Skip()
        read = _READS.match(ctx.route)
        if not read or ctx.request.method != "GET":
            return Skip()
        key = (read.group(1), ctx.route + "?" + "&".join(f"{k}={v}" for k, v in ctx.request.query))
        body = _json(ctx.response)
        if body is None:
            return Skip()
        held = self._stale.get(key)
        if held is None or (held[2] and ctx.now_s - held[0] >= float(self.param("window_s"))):
            self._last_read[key] = body  # no input since the last read, or its window has passed
            return Skip()
        if held[1] == body:
            self._last_read[key] = body
            return None  # the input changed nothing a read shows: a chance, with nothing to hold back
        self._stale[key] = (held[0], held[1], True)
        assert ctx.response is not None
        return Rewrite(_with_body(ctx.response, held[1]), {"stale_session": key[0], "read": key[1],
                                                           "input_at_s": held[0], "window_s": float(self.param("window_s"))})
