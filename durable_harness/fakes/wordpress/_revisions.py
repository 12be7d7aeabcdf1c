"""``/wp/v2/posts/<id>/revisions[/<id>]`` (and pages): the revisions controller of core, read-only.

A revision is a copy of the post's title, content and excerpt as a save left them (see
``_state``). The list is newest first and paged like any collection (``X-WP-Total``,
``X-WP-TotalPages``, 400 past the last page). Only someone who may edit the parent may read its
revisions: a visitor gets 401 ``rest_cannot_read``. A parent that does not exist is 404
``rest_post_invalid_parent``; a revision that is not the parent's is 404 ``rest_post_invalid_id``.

What it deliberately does not do: delete or restore revisions, autosaves, or ``_fields``-aware
queries (fields are cut after rendering, as everywhere in the fake).
"""

from __future__ import annotations

import math

from durable_harness.wire import Request, Response
from durable_harness.fakes.wordpress._api import Api, route_id
from durable_harness.fakes.wordpress._errors import WPError, auth_required
from durable_harness.fakes.wordpress._params import Validator, request_params
from durable_harness.fakes.wordpress._query import CONTEXTS
from durable_harness.fakes.wordpress._records import Item

__all__ = ["RevisionRoutes"]


class RevisionRoutes:
    def __init__(self, api: Api, type_: str, route: str) -> None:
        self._api = api
        self._type = type_
        self._route = route

    def _parent(self, request: Request, parent: str) -> Item:
        item = self._api.state.get(route_id(parent), self._type)
        if item is None:
            raise WPError("rest_post_invalid_parent", "Invalid post parent ID.", 404)
        if self._api.user(request) is None:
            raise auth_required("rest_cannot_read", "Sorry, you are not allowed to view revisions of this post.", False)
        return item

    def list(self, request: Request, parent: str) -> Response:
        params = request_params(request)
        v = Validator()
        context = v.enum("context", params.get("context", "view"), CONTEXTS) or "view"
        page = v.integer("page", params.get("page", 1), minimum=1) or 1
        per_page = v.integer("per_page", params.get("per_page"), minimum=1, maximum=100)
        offset = v.integer("offset", params.get("offset"))
        v.done()
        item = self._parent(request, parent)
        revisions = sorted(item.revision_log, key=lambda r: (r.date, r.id), reverse=True)
        headers: dict[str, str] = {}
        if per_page is not None or offset is not None:  # core pages revisions only when asked to
            size = per_page or 10
            total, pages = len(revisions), math.ceil(len(revisions) / size)
            if total and page > pages:
                raise WPError("rest_revision_invalid_page_number",
                              "The page number requested is larger than the number of pages available.", 400)
            start = offset if offset is not None else (page - 1) * size
            revisions = revisions[start:start + size]
            headers = {"X-WP-Total": str(total), "X-WP-TotalPages": str(pages)}
        else:
            headers = {"X-WP-Total": str(len(revisions)), "X-WP-TotalPages": "1" if revisions else "0"}
        body = [self._api.renderer.revision(r, item, self._route, context) for r in revisions]
        return self._api.respond(request, 200, body, headers=headers)

    def get(self, request: Request, parent: str, id: str) -> Response:
        params = request_params(request)
        v = Validator()
        context = v.enum("context", params.get("context", "view"), CONTEXTS) or "view"
        v.done()
        item = self._parent(request, parent)
        wanted = route_id(id)
        for revision in item.revision_log:
            if revision.id == wanted:
                return self._api.respond(request, 200, self._api.renderer.revision(revision, item, self._route, context))
        raise WPError("rest_post_invalid_id", "Invalid revision ID.", 404)
