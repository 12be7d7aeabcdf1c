"""Rank Math's ``POST /rankmath/v1/updateMeta``: the SEO meta endpoint of the plugin (v1.0.273).

Body ``{"objectType": "post", "objectID": <id>, "meta": {"rank_math_title": ...}}``. Missing
parameters are 400 ``rest_missing_callback_param``; empty ones 400 ``rest_invalid_param`` with
detail ``param_value_empty``; an unknown object 404 ``rest_post_invalid_id``; a visitor 401
``rest_cannot_edit``. Only ``rank_math_*`` keys are written, an empty value deletes the key, and
the answer is ``{"slug": true | "<new slug>", "schemas": []}``.

What it deliberately does not do: terms, users, schemas (``updateSchemas``), bulk updates, or
the site-editor homepage branch beyond answering it.
"""

from __future__ import annotations

from durable_harness.wire import Request, Response
from durable_harness.fakes.wordpress._api import Api
from durable_harness.fakes.wordpress._errors import ParamErrors, WPError, auth_required, post_invalid_id
from durable_harness.fakes.wordpress._params import as_int, php_empty, request_params

__all__ = ["RankMathRoutes"]

_REQUIRED = ("objectType", "objectID", "meta")


class RankMathRoutes:
    def __init__(self, api: Api) -> None:
        self._api = api

    def update_meta(self, request: Request) -> Response:
        params = request_params(request)
        missing = [name for name in _REQUIRED if params.get(name) is None]
        if missing:
            raise WPError("rest_missing_callback_param", "Missing parameter(s): " + ", ".join(missing), 400,
                          params=missing)
        errors = ParamErrors()
        for name in _REQUIRED:
            value = params[name]
            if php_empty(value) and not (name == "objectID" and value == 0):
                errors.add(name, "param_value_empty", "Sorry, field is empty which is not allowed.")
        errors.raise_if_any()
        object_id = as_int(params["objectID"])
        if object_id is None:
            errors.add("objectID", "rest_invalid_type", "objectID is not of type integer.", {"param": "objectID"})
            errors.raise_if_any()
        assert object_id is not None
        user = self._api.user(request)
        if params["objectType"] != "post":
            raise auth_required("rest_forbidden", "Sorry, you are not allowed to do that.", user is not None)
        if object_id == 0:
            return self._api.respond(request, 200, {"slug": "/", "schemas": []})
        item = self._api.state.get(object_id)
        if item is None or object_id < 0:
            raise post_invalid_id()
        if user is None:
            raise auth_required("rest_cannot_edit", "Sorry, you are not allowed to edit this post.", False)
        meta = params["meta"] if isinstance(params["meta"], dict) else {}
        slug = self._api.state.rank_math(item, meta, by=self._api.label(request))
        return self._api.respond(request, 200, {"slug": slug, "schemas": []})
