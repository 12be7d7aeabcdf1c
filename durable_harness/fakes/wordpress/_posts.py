"""``/wp/v2/posts[/<id>]`` and ``/wp/v2/pages[/<id>]``: the posts controller of core, for both types.

Each handler follows core's order: read the parameters (a bad JSON body is a 400), validate them
(400 ``rest_invalid_param``), check permissions (401 for a visitor), then act. Create answers 201
with ``Location``; update is a partial update for POST, PUT and PATCH; delete trashes (410 the
second time) or, with ``force=true``, deletes for good. A registered-meta error is raised after
the write has committed, exactly as core returns it. An ``id`` in the body or the query names the
item acted on, whatever the URL says (``POST /posts/5 {"id": 7}`` updates 7), as in core. Pages
have ``parent``, ``menu_order`` and ``template`` instead of terms, ``sticky`` and ``format``.

What it deliberately does not do: autosaves, terms other than category 1, post formats beyond
storing the value, page hierarchies beyond storing the parent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from durable_harness.wire import Request, Response
from durable_harness.fakes.wordpress._api import Api, rich_text, target_id
from durable_harness.fakes.wordpress._auth import User
from durable_harness.fakes.wordpress._errors import WPError, auth_required, post_invalid_id
from durable_harness.fakes.wordpress._params import Validator, php_empty, request_params
from durable_harness.fakes.wordpress._query import CONTEXTS
from durable_harness.fakes.wordpress._records import Item, PostChange

__all__ = ["PostRoutes", "read_change"]

POST_STATUSES = ("publish", "future", "draft", "pending", "private")
FORMATS = ("standard", "aside", "chat", "gallery", "link", "image", "quote", "status", "video", "audio")


def read_change(params: Mapping[str, Any], v: Validator, *, current: Item | None, type_: str = "post") -> PostChange:
    """The writable fields of a post or page create or update body (validation errors go to ``v``)."""
    posts = type_ == "post"
    status_value = params.get("status")
    # check_status(): re-sending the current status is always allowed, and then it is not handled.
    same_status = current is not None and status_value == current.status
    status = None if same_status else v.enum("status", status_value, POST_STATUSES)
    date = v.date("date", params.get("date"))
    date_gmt = v.date("date_gmt", params.get("date_gmt"))
    categories = v.int_list("categories", params.get("categories")) if posts else None
    if posts:
        v.int_list("tags", params.get("tags"))  # no tags exist: valid ids are skipped, names rejected
    v.string("template", params.get("template"))
    return PostChange(
        title=rich_text(params.get("title"), raw_must_be_non_empty=True),
        content=rich_text(params.get("content")),
        excerpt=rich_text(params.get("excerpt")),
        status=status,
        slug=v.string("slug", params.get("slug")),
        date=date or date_gmt,
        reset_date=("date" in params and params["date"] is None) or ("date_gmt" in params and params["date_gmt"] is None),
        password=v.string("password", params.get("password")),
        author=v.integer("author", params.get("author")),
        featured_media=v.integer("featured_media", params.get("featured_media")),
        comment_status=v.enum("comment_status", params.get("comment_status") or None, ("open", "closed")),
        ping_status=v.enum("ping_status", params.get("ping_status") or None, ("open", "closed")),
        sticky=v.boolean("sticky", params.get("sticky")) if posts else None,
        format=v.enum("format", params.get("format") or None, FORMATS) if posts else None,
        categories=tuple(categories) if categories is not None else None,
        meta=v.object("meta", params.get("meta")),
        parent=None if posts else v.integer("parent", params.get("parent")),
        menu_order=None if posts else v.integer("menu_order", params.get("menu_order")),
    )


def check_author(change: PostChange, user: User) -> None:
    if change.author and change.author != user.id:
        raise WPError("rest_invalid_author", "Invalid author ID.", 400)


class PostRoutes:
    """The controller of one post type: ``post`` at ``/wp/v2/posts`` or ``page`` at ``/wp/v2/pages``."""

    def __init__(self, api: Api, type_: str = "post", route: str = "/wp/v2/posts") -> None:
        self._api = api
        self._type = type_
        self._route = route

    def _edit_body(self, item: Item, user: User) -> dict[str, Any]:
        return self._api.renderer.post(item, "edit", user=user)

    def list(self, request: Request) -> Response:
        return self._api.list_response(request, type_=self._type, route=self._route, render=self._list_body)

    def _list_body(self, items: Sequence[Item], context: str, user: User | None) -> Sequence[dict[str, Any]]:
        return [self._api.renderer.post(i, context, user=user) for i in items]

    def get(self, request: Request, id: str) -> Response:
        params = request_params(request)
        v = Validator()
        post_id = target_id(params, id, v)
        context = v.enum("context", params.get("context", "view"), CONTEXTS) or "view"
        password = v.string("password", params.get("password"))
        v.done()
        item = self._api.existing(post_id, self._type)
        user = self._api.user(request)
        if context == "edit" and user is None:
            raise auth_required("rest_forbidden_context", "Sorry, you are not allowed to edit this post.", False)
        if password and password != item.password:
            raise WPError("rest_post_incorrect_password", "Incorrect post password.", 403)
        if item.status != "publish" and user is None:
            raise auth_required("rest_forbidden", "Sorry, you are not allowed to do that.", False)
        body = self._api.renderer.post(item, context, user=user)
        alternate = f'<{self._api.renderer.link(item)}>; rel="alternate"; type=text/html'
        return self._api.respond(request, 200, body, links=[alternate])

    def create(self, request: Request) -> Response:
        params = request_params(request)
        v = Validator()
        change = read_change(params, v, current=None, type_=self._type)
        v.done()
        if not php_empty(params.get("id")):
            raise WPError("rest_post_exists", "Cannot create existing post.", 400)
        user = self._api.user(request)
        if user is None:
            raise auth_required("rest_cannot_create", "Sorry, you are not allowed to create posts as this user.", False)
        check_author(change, user)
        item, late_error = self._api.state.create_post(change, by=self._api.label(request), author=user.id,
                                                       type_=self._type)
        if late_error is not None:
            raise late_error  # the post exists; core reports the meta error anyway
        location = self._api.site.rest_url(f"{self._route}/{item.id}")
        return self._api.respond(request, 201, self._edit_body(item, user), headers={"Location": location})

    def update(self, request: Request, id: str) -> Response:
        params = request_params(request)
        v = Validator()
        post_id = target_id(params, id, v)
        item = self._api.state.get(post_id, self._type)
        change = read_change(params, v, current=item, type_=self._type)
        v.done()
        if item is None:
            raise post_invalid_id()
        user = self._api.user(request)
        if user is None:
            raise auth_required("rest_cannot_edit", "Sorry, you are not allowed to edit this post.", False)
        check_author(change, user)
        late_error = self._api.state.update(item, change, by=self._api.label(request))
        if late_error is not None:
            raise late_error
        return self._api.respond(request, 200, self._edit_body(item, user))

    def delete(self, request: Request, id: str) -> Response:
        params = request_params(request)
        v = Validator()
        post_id = target_id(params, id, v)
        force = v.boolean("force", params.get("force"))
        v.done()
        item = self._api.existing(post_id, self._type)
        user = self._api.user(request)
        if user is None:
            raise auth_required("rest_cannot_delete", "Sorry, you are not allowed to delete this post.", False)
        by = self._api.label(request)
        if force:
            previous = self._edit_body(item, user)
            self._api.state.delete(item, by=by)
            return self._api.respond(request, 200, {"deleted": True, "previous": previous})
        if item.status == "trash":
            raise WPError("rest_already_trashed", "The post has already been deleted.", 410)
        self._api.state.trash(item, by=by)
        return self._api.respond(request, 200, self._edit_body(item, user))
