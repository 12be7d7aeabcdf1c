"""``/wp/v2/users[/<id>|/me]`` and ``/wp/v2/users/<id|me>/application-passwords[/<uuid>]``.

Users: a visitor sees only users who have published posts (core's ``has_published_posts``); a
logged-in editor sees everyone. ``users/me`` is 401 ``rest_not_logged_in`` for a visitor.
Application passwords: the user's passwords in force, listed without their secret (``uuid``,
``app_id``, ``name``, ``created``, ``last_used``, ``last_ip``); ``POST`` with a ``name`` issues a new
one and answers 201 with the password in its grouped display form, shown this once; ``DELETE
…/<uuid>`` revokes one. A revoked password no longer authenticates (see ``_auth``).

What it deliberately does not do: create, edit or delete users, roles, ``last_used`` tracking, or
``app_id`` authorisation flows.
"""

from __future__ import annotations

from typing import Any

from durable_harness.wire import Request, Response
from durable_harness.fakes.wordpress._api import Api, route_id
from durable_harness.fakes.wordpress._auth import AppPassword, User
from durable_harness.fakes.wordpress._errors import WPError, auth_required
from durable_harness.fakes.wordpress._params import Validator, request_params
from durable_harness.fakes.wordpress._query import CONTEXTS
from durable_harness.fakes.wordpress._text import collate

__all__ = ["UserRoutes"]

class UserRoutes:
    def __init__(self, api: Api) -> None:
        self._api = api

    def _context(self, request: Request) -> str:
        params = request_params(request)
        v = Validator()
        context = v.enum("context", params.get("context", "view"), CONTEXTS) or "view"
        v.done()
        return context

    def _published(self, user: User) -> bool:
        return any(p.author == user.id and p.status == "publish" for p in self._api.state.live("post"))

    def list(self, request: Request) -> Response:
        context = self._context(request)
        viewer = self._api.user(request)
        if context == "edit" and viewer is None:
            raise auth_required("rest_forbidden_context", "Sorry, you are not allowed to list users.", False)
        users = [u for u in self._api.accounts.users if viewer is not None or self._published(u)]
        body = [self._api.renderer.user(u, context) for u in users]
        return self._api.respond(request, 200, body, headers={"X-WP-Total": str(len(body)),
                                                              "X-WP-TotalPages": "1" if body else "0"})

    def get(self, request: Request, id: str) -> Response:
        context = self._context(request)
        wanted = route_id(id)
        user = next((u for u in self._api.accounts.users if u.id == wanted), None)
        if user is None:
            raise WPError("rest_user_invalid_id", "Invalid user ID.", 404)
        viewer = self._api.user(request)
        if viewer is None and (context == "edit" or not self._published(user)):
            raise auth_required("rest_user_cannot_view", "Sorry, you are not allowed to list users.", False)
        return self._api.respond(request, 200, self._api.renderer.user(user, context))

    def me(self, request: Request) -> Response:
        context = self._context(request)
        user = self._api.user(request)
        if user is None:
            raise WPError("rest_not_logged_in", "You are not currently logged in.", 401)
        return self._api.respond(request, 200, self._api.renderer.user(user, context))

    # -- application passwords ------------------------------------------------------------------
    def _owner(self, request: Request, who: str) -> User:
        viewer = self._api.user(request)
        if who == "me":
            if viewer is None:
                raise WPError("rest_not_logged_in", "You are not currently logged in.", 401)
            return viewer
        wanted = route_id(who)
        if wanted not in (u.id for u in self._api.accounts.users):
            raise WPError("rest_user_invalid_id", "Invalid user ID.", 404)
        if viewer is None or viewer.id != wanted:
            raise auth_required("rest_cannot_list_application_passwords",
                                "Sorry, you are not allowed to list application passwords for this user.", viewer is not None)
        return viewer

    def _password(self, pw: AppPassword, owner: User) -> dict[str, Any]:
        href = self._api.site.rest_url(f"/wp/v2/users/{owner.id}/application-passwords/{pw.uuid}")
        return {"uuid": pw.uuid, "app_id": "", "name": pw.name, "created": pw.created, "last_used": None,
                "last_ip": None, "_links": {"self": [{"href": href}]}}

    def list_passwords(self, request: Request, who: str) -> Response:
        owner = self._owner(request, who)
        mine = self._api.accounts.in_force() if owner.id == self._api.accounts.user.id else []
        return self._api.respond(request, 200, [self._password(pw, owner) for pw in mine])

    def create_password(self, request: Request, who: str) -> Response:
        params = request_params(request)
        if params.get("name") is None:
            raise WPError("rest_missing_callback_param", "Missing parameter(s): name", 400, params=["name"])
        v = Validator()
        name = v.string("name", params.get("name"))
        v.done()
        owner = self._owner(request, who)
        if not (name or "").strip():
            raise WPError("application_password_empty_name", "An application name is required to create an "
                          "application password.", 400)
        self._unique_name((name or "").strip())
        display = self._api.accounts.issue(name=(name or "").strip())
        body = {**self._password(self._api.accounts.passwords[-1], owner), "password": display}
        return self._api.respond(request, 201, body, headers={
            "Location": self._api.site.rest_url(f"/wp/v2/users/{owner.id}/application-passwords/{body['uuid']}")})

    def delete_password(self, request: Request, who: str, uuid: str) -> Response:
        owner = self._owner(request, who)
        pw = self._find(uuid)
        previous = {k: v for k, v in self._password(pw, owner).items() if k != "_links"}
        self._api.accounts.revoke(pw.number)
        return self._api.respond(request, 200, {"deleted": True, "previous": previous})

    def get_password(self, request: Request, who: str, uuid: str) -> Response:
        owner = self._owner(request, who)
        return self._api.respond(request, 200, self._password(self._find(uuid), owner))

    def rename_password(self, request: Request, who: str, uuid: str) -> Response:
        """``POST …/application-passwords/<uuid>``: a new name (the only field a client may change)."""
        params = request_params(request)
        v = Validator()
        name = v.string("name", params.get("name"))
        v.done()
        owner = self._owner(request, who)
        pw = self._find(uuid)
        if name is not None and name.strip():
            self._api.accounts.rename(pw.number, name.strip())
        return self._api.respond(request, 200, self._password(pw, owner))

    def introspect_password(self, request: Request, who: str) -> Response:
        """The application password this very request was authenticated with."""
        owner = self._owner(request, who)
        number = self._api.identity(request).password
        pw = next((p for p in self._api.accounts.in_force() if p.number == number), None)
        if pw is None:
            raise WPError("rest_no_authenticated_app_password", "Cannot introspect application password.", 404)
        return self._api.respond(request, 200, self._password(pw, owner))

    def _find(self, uuid: str) -> AppPassword:
        for pw in self._api.accounts.in_force():
            if pw.uuid == uuid:
                return pw
        raise WPError("rest_application_password_not_found", "Application password not found.", 404)

    def _unique_name(self, name: str) -> None:
        """A user's application names are unique, compared in the database's collation (case and
        accents do not count)."""
        if any(collate(pw.name) == collate(name) for pw in self._api.accounts.in_force()):
            raise WPError("application_password_duplicate_name", "Each application name should be unique.", 409)
