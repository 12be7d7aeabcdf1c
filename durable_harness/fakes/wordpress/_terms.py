"""``/wp/v2/categories[/<id>]`` and ``/wp/v2/tags[/<id>]``: the terms the site has, read-only.

A fresh site has one category, "Uncategorized" (id 1, every post's default), and no tags. The
category's ``count`` is the number of published posts in it, as core keeps it. Collections are
paged like any other (``X-WP-Total``, ``X-WP-TotalPages``); a term that does not exist is 404
``rest_term_invalid``.

What it deliberately does not do: create, edit or delete terms (a site with more terms is out of
scope: the posts machine knows category 1 only), hierarchies, ``post`` filters on term lists.
"""

from __future__ import annotations

import math
from typing import Any

from durable_harness.wire import Request, Response
from durable_harness.fakes.wordpress._api import Api, route_id
from durable_harness.fakes.wordpress._errors import WPError
from durable_harness.fakes.wordpress._params import Validator, request_params
from durable_harness.fakes.wordpress._query import CONTEXTS

__all__ = ["TermRoutes"]


class TermRoutes:
    def __init__(self, api: Api) -> None:
        self._api = api

    def _terms(self, taxonomy: str) -> list[dict[str, Any]]:
        return [self._api.renderer.category()] if taxonomy == "category" else []

    def list_categories(self, request: Request) -> Response:
        return self._list(request, "category")

    def list_tags(self, request: Request) -> Response:
        return self._list(request, "post_tag")

    def get_category(self, request: Request, id: str) -> Response:
        return self._get(request, "category", id)

    def get_tag(self, request: Request, id: str) -> Response:
        return self._get(request, "post_tag", id)

    def _list(self, request: Request, taxonomy: str) -> Response:
        params = request_params(request)
        v = Validator()
        v.enum("context", params.get("context", "view"), CONTEXTS)
        page = v.integer("page", params.get("page", 1), minimum=1) or 1
        per_page = v.integer("per_page", params.get("per_page", 10), minimum=1, maximum=100) or 10
        v.done()
        terms = self._terms(taxonomy)
        total, pages = len(terms), math.ceil(len(terms) / per_page)
        if total and page > pages:
            raise WPError("rest_term_invalid_page_number",
                          "The page number requested is larger than the number of pages available.", 400)
        body = terms[(page - 1) * per_page:page * per_page]
        return self._api.respond(request, 200, body, headers={"X-WP-Total": str(total), "X-WP-TotalPages": str(pages)})

    def _get(self, request: Request, taxonomy: str, id: str) -> Response:
        term_id = route_id(id)
        for term in self._terms(taxonomy):
            if term["id"] == term_id:
                return self._api.respond(request, 200, term)
        raise WPError("rest_term_invalid", "Term does not exist.", 404)
