"""Collections: filters and their 400s, pagination, offsets, the operation-key lookup (with and
without its plugin), and ``search_columns`` (version skew). Each case runs on the fake and on the
real WordPress (see conftest)."""

from __future__ import annotations

import pytest

from _conformance import Site, error, ids, links, post

BAD_VALUES = [
    ({"after": "yesterday"}, {"after": "Invalid date."}),
    ({"sticky": "maybe"}, {"sticky": "sticky is not of type boolean."}),
    ({"categories": "abc"}, {"categories": "categories is not a valid Term ID List. Reason: categories[0] is not of type integer."}),
    ({"tags_exclude": "abc"}, {"tags_exclude": "tags_exclude is not a valid Term ID List. Reason: tags_exclude[0] is not of type integer."}),
    ({"author_exclude": "x"}, {"author_exclude": "author_exclude[0] is not of type integer."}),
    ({"modified_after": "x", "before": "y"}, {"modified_after": "Invalid date.", "before": "Invalid date."}),
    ({"per_page": "5.5"}, {"per_page": "per_page is not of type integer."}),
    ({"per_page": "101"}, {"per_page": "per_page must be between 1 (inclusive) and 100 (inclusive)"}),
]


@pytest.mark.parametrize(("query", "params"), BAD_VALUES, ids=lambda v: ",".join(v) if isinstance(v, dict) else "")
def test_bad_filter_values_are_400_with_cores_messages(site: Site, query: dict[str, str], params: dict[str, str]) -> None:
    body = error(site.editor.get("/wp/v2/posts", params=query), 400, "rest_invalid_param")
    assert body["data"]["params"] == params
    assert body["message"] == "Invalid parameter(s): " + ", ".join(params)


def test_a_float_notation_integer_is_an_integer(site: Site) -> None:
    assert site.editor.get("/wp/v2/posts", params={"per_page": "1e2", "_fields": "id"}).status_code == 200


def test_date_filters_are_exclusive_ranges_on_the_post_date(site: Site) -> None:
    token = site.token
    early = post(site.editor, title=f"{token} early", date="2020-01-10T10:00:00")
    late = post(site.editor, title=f"{token} late", date="2020-06-10T10:00:00")
    base = {"search": token, "status": "any", "context": "edit", "orderby": "id", "order": "asc"}
    assert ids(site.editor.get("/wp/v2/posts", params=base)) == [early["id"], late["id"]]
    assert ids(site.editor.get("/wp/v2/posts", params={**base, "after": "2020-03-01T00:00:00"})) == [late["id"]]
    assert ids(site.editor.get("/wp/v2/posts", params={**base, "before": "2020-03-01T00:00:00"})) == [early["id"]]
    assert ids(site.editor.get("/wp/v2/posts", params={**base, "after": "2020-06-10T10:00:00"})) == []
    assert ids(site.editor.get("/wp/v2/posts", params={**base, "modified_after": "2000-01-01T00:00:00"})) == \
        [early["id"], late["id"]]


def test_term_author_and_sticky_filters(site: Site) -> None:
    token = site.token
    plain = post(site.editor, title=f"{token} plain", status="publish")
    sticky = post(site.editor, title=f"{token} sticky", status="publish", sticky=True)
    base = {"search": token, "orderby": "id", "order": "asc"}
    me = site.editor.get("/wp/v2/users/me").json()["id"]
    assert ids(site.editor.get("/wp/v2/posts", params={**base, "categories": "1"})) == [plain["id"], sticky["id"]]
    assert ids(site.editor.get("/wp/v2/posts", params={**base, "categories_exclude": "1"})) == []
    assert ids(site.editor.get("/wp/v2/posts", params={**base, "tags": "987654"})) == []
    assert ids(site.editor.get("/wp/v2/posts", params={**base, "author_exclude": str(me)})) == []
    assert ids(site.editor.get("/wp/v2/posts", params={**base, "sticky": "true"})) == [sticky["id"]]
    assert ids(site.editor.get("/wp/v2/posts", params={**base, "sticky": "false"})) == [plain["id"]]


def test_pages_of_a_listing_and_the_page_past_the_end(site: Site) -> None:
    token = site.token
    made = [post(site.editor, title=f"{token} {n}")["id"] for n in range(3)]
    base = {"search": token, "status": "any", "per_page": "2", "orderby": "id", "order": "asc"}
    first = site.editor.get("/wp/v2/posts", params=base)
    assert ids(first) == made[:2]
    assert (first.headers["x-wp-total"], first.headers["x-wp-totalpages"]) == ("3", "2")
    assert "next" in links(first) and "prev" not in links(first)
    second = site.editor.get("/wp/v2/posts", params={**base, "page": "2"})
    assert ids(second) == made[2:] and "prev" in links(second) and "next" not in links(second)
    error(site.editor.get("/wp/v2/posts", params={**base, "page": "3"}), 400, "rest_post_invalid_page_number")
    nothing = site.editor.get("/wp/v2/posts", params={**base, "search": token + "none", "page": "5"})
    assert nothing.json() == [] and nothing.headers["x-wp-total"] == "0" and nothing.headers["x-wp-totalpages"] == "0"


def test_an_offset_past_the_end_reports_no_total(site: Site) -> None:
    """WP_Query leaves found_posts at 0 when the page comes back empty."""
    token = site.token
    made = [post(site.editor, title=f"{token} {n}")["id"] for n in range(3)]
    base = {"search": token, "status": "any", "per_page": "1", "orderby": "id", "order": "asc"}
    inside = site.editor.get("/wp/v2/posts", params={**base, "offset": "1"})
    assert ids(inside) == made[1:2] and inside.headers["x-wp-total"] == "3" and "next" in links(inside)
    past = site.editor.get("/wp/v2/posts", params={**base, "offset": "7"})
    assert past.json() == [] and (past.headers["x-wp-total"], past.headers["x-wp-totalpages"]) == ("0", "0")
    assert "next" not in links(past)


def test_the_operation_key_lookup_finds_exactly_the_posts_carrying_the_key(site: Site) -> None:
    token = site.token
    mine = post(site.editor, title=f"{token} mine", meta={"operation_key": f"{token}/k"})
    post(site.editor, title=f"{token} other", meta={"operation_key": f"{token}/other"})
    found = site.editor.get("/wp/v2/posts", params={"operation_key": f"{token}/k", "status": "any", "context": "edit"})
    assert ids(found) == [mine["id"]] and found.headers["x-wp-total"] == "1"
    assert ids(site.editor.get("/wp/v2/posts", params={"operation_key": f"{token}/none", "status": "any"})) == []


def test_without_the_lookup_plugin_the_operation_key_is_ignored(site: Site) -> None:
    """Core ignores parameters it does not know: the lookup gets the unfiltered listing, and a client
    that trusts it adopts whatever comes first."""
    client = site.client(site.auth, operation_key_query=False)
    token = site.token
    mine = post(client, title=f"{token} mine", meta={"operation_key": f"{token}/k"})
    other = post(client, title=f"{token} other", meta={"operation_key": f"{token}/other"})
    found = client.get("/wp/v2/posts", params={"operation_key": f"{token}/k", "status": "any", "context": "edit",
                                               "search": token, "orderby": "id", "order": "asc"})
    assert ids(found) == [mine["id"], other["id"]]
    assert [p["meta"]["operation_key"] for p in found.json()] == [f"{token}/k", f"{token}/other"]


def test_search_columns_is_version_skew(site: Site) -> None:
    """``search_columns`` arrived in WordPress 6.2. The fake follows 6.2+: it limits the search to titles
    and refuses a bogus column with 400. A 6.1 site ignores the parameter: content matches too, and a
    bogus column is no error."""
    token = site.token
    titled = post(site.editor, title=f"{token} titled")
    bodied = post(site.editor, title="no token here", content=f"the word {token} inside")
    query = {"search": token, "status": "any", "search_columns": "post_title", "orderby": "id", "order": "asc"}
    r = site.editor.get("/wp/v2/posts", params=query)
    bogus = site.editor.get("/wp/v2/posts", params={**query, "search_columns": "post_bogus"})
    if site.kind == "fake":
        assert ids(r) == [titled["id"]]
        error(bogus, 400, "rest_invalid_param")
    else:
        assert ids(r) == [titled["id"], bodied["id"]]
        assert bogus.status_code == 200


def test_drafts_are_hidden_from_visitors_and_by_default(site: Site) -> None:
    token = site.token
    draft = post(site.editor, title=f"{token} draft")
    assert ids(site.editor.get("/wp/v2/posts", params={"search": token})) == []
    assert ids(site.editor.get("/wp/v2/posts", params={"search": token, "status": "any"})) == [draft["id"]]
    error(site.visitor.get("/wp/v2/posts", params={"status": "draft"}), 400, "rest_invalid_param")
    error(site.visitor.get("/wp/v2/posts", params={"context": "edit"}), 401, "rest_forbidden_context")


def test_a_page_past_the_end_is_refused_even_with_an_offset(site: Site) -> None:
    """The page check uses the request's page, whatever the offset: offset 0 on page 2 of 1 is a 400."""
    token = site.token
    post(site.editor, title=f"{token} only")
    base = {"search": token, "status": "any", "per_page": "1"}
    error(site.editor.get("/wp/v2/posts", params={**base, "page": "2", "offset": "0"}), 400,
          "rest_post_invalid_page_number")
    past = site.editor.get("/wp/v2/posts", params={**base, "page": "3", "offset": "5"})
    assert past.status_code == 200 and past.json() == [] and past.headers["x-wp-total"] == "0"
