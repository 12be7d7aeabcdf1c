"""Routes beyond posts and media, and authentication: terms, users, post types, application
passwords, batch requests, OPTIONS, both authentication modes. Each case runs on the fake and on
the real WordPress (see conftest)."""

from __future__ import annotations

from typing import Any

from _conformance import PNG, Site, error, ids, post

_POST_LIST_ARGS = {"after", "author", "author_exclude", "before", "categories", "categories_exclude", "context",
                   "exclude", "include", "modified_after", "modified_before", "offset", "operation_key", "order",
                   "orderby", "page", "per_page", "search", "slug", "status", "sticky", "tags", "tags_exclude",
                   "tax_relation"}


def test_terms_users_and_types(site: Site) -> None:
    categories = site.editor.get("/wp/v2/categories")
    assert categories.status_code == 200
    assert [(c["id"], c["slug"], c["taxonomy"]) for c in categories.json()] == [(1, "uncategorized", "category")]
    error(site.editor.get("/wp/v2/categories/987654"), 404, "rest_term_invalid")
    tags = site.editor.get("/wp/v2/tags")
    assert tags.status_code == 200 and tags.json() == [] and tags.headers["x-wp-total"] == "0"
    me = site.editor.get("/wp/v2/users/me", params={"context": "edit"}).json()
    assert me["id"] in [u["id"] for u in site.editor.get("/wp/v2/users").json()]
    assert site.editor.get(f"/wp/v2/users/{me['id']}").json()["slug"] == me["slug"]
    error(site.visitor.get("/wp/v2/users/me"), 401, "rest_not_logged_in")
    post_type = site.editor.get("/wp/v2/types/post").json()
    assert (post_type["slug"], post_type["rest_base"], post_type["taxonomies"]) == ("post", "posts", ["category", "post_tag"])


def test_application_passwords_listed_without_secrets(site: Site) -> None:
    r = site.editor.get("/wp/v2/users/me/application-passwords")
    assert r.status_code == 200 and r.json()
    assert set(r.json()[0]) >= {"uuid", "app_id", "name", "created", "last_used", "last_ip"}
    assert not any("password" in item for item in r.json())
    error(site.editor.post("/wp/v2/users/me/application-passwords", json={}), 400, "rest_missing_callback_param")
    error(site.visitor.get("/wp/v2/users/me/application-passwords"), 401, "rest_not_logged_in")


def _batch(site: Site, requests: list[dict[str, Any]], validation: str = "normal") -> Any:
    return site.editor.post("/batch/v1", json={"validation": validation, "requests": requests})


def test_a_batch_is_207_and_not_transactional(site: Site) -> None:
    token = site.token
    r = _batch(site, [{"method": "POST", "path": "/wp/v2/posts", "body": {"title": f"{token} one"}},
                      {"method": "POST", "path": "/wp/v2/posts", "body": {"status": "nope"}},
                      {"method": "POST", "path": "/wp/v2/media", "body": {}},
                      {"method": "POST", "path": "/wp/v2/nothing"}])
    assert r.status_code == 207
    answers = r.json()["responses"]
    assert [a["status"] for a in answers] == [201, 400, 400, 404]
    assert [a["body"].get("code") for a in answers[1:]] == ["rest_invalid_param", "rest_batch_not_allowed", "rest_no_route"]
    assert answers[0]["headers"]["Location"].endswith(f"/wp/v2/posts/{answers[0]['body']['id']}")
    assert answers[3]["headers"] == []
    assert ids(site.editor.get("/wp/v2/posts", params={"search": token, "status": "any"})) == [answers[0]["body"]["id"]]


def test_a_batch_that_must_all_validate_writes_nothing_when_one_fails(site: Site) -> None:
    token = site.token
    r = _batch(site, [{"method": "POST", "path": "/wp/v2/posts", "body": {"title": f"{token} one"}},
                      {"method": "POST", "path": "/wp/v2/posts", "body": {"status": "nope"}}], "require-all-validate")
    assert r.status_code == 207
    assert r.json()["failed"] == "validation"
    first, second = r.json()["responses"]
    assert first is None and second["status"] == 400 and second["body"]["code"] == "rest_invalid_param"
    assert ids(site.editor.get("/wp/v2/posts", params={"search": token, "status": "any"})) == []
    ok = _batch(site, [{"method": "POST", "path": "/wp/v2/posts", "body": {"title": f"{token} two"}}], "require-all-validate")
    assert ok.status_code == 207 and "failed" not in ok.json() and ok.json()["responses"][0]["status"] == 201


def test_a_batch_refuses_reads_and_more_than_25_requests(site: Site) -> None:
    body = error(_batch(site, [{"method": "GET", "path": "/wp/v2/posts"}]), 400, "rest_invalid_param")
    assert body["data"]["params"] == {"requests": "requests[0][method] is not one of POST, PUT, PATCH, and DELETE."}
    many = [{"method": "POST", "path": "/wp/v2/posts", "body": {"title": "x"}}] * 26
    body = error(_batch(site, many), 400, "rest_invalid_param")
    assert body["data"]["params"] == {"requests": "requests must contain at most 25 items."}


def test_options_describes_a_route(site: Site) -> None:
    r = site.editor.options("/wp/v2/posts")
    assert r.status_code == 200
    body = r.json()
    assert (body["namespace"], body["methods"]) == ("wp/v2", ["GET", "POST"])
    get = next(e for e in body["endpoints"] if e["methods"] == ["GET"])
    args = set(get["args"])
    if site.kind == "fake":  # version skew: search_columns is 6.2+, and the fake follows 6.2+
        args.discard("search_columns")
    assert args == _POST_LIST_ARGS
    assert body["schema"]["title"] == "post" and "title" in body["schema"]["properties"]
    item = site.editor.options("/wp/v2/posts/1").json()
    assert item["methods"] == ["GET", "POST", "PUT", "PATCH", "DELETE"]
    assert site.editor.options("/wp/v2/nothing").json() == []
    assert site.editor.get("/wp/v2/posts", params={"_fields": "id"}).headers["allow"] == "GET, POST"
    assert site.visitor.options("/wp/v2/posts").headers["allow"] == "GET"


def test_core_auth_runs_bad_credentials_anonymously(site: Site) -> None:
    """WordPress alone: a wrong application password is dropped; reads work, writes are refused."""
    wrong = site.client((site.auth[0], "wrong password"))
    assert wrong.get("/wp/v2/posts", params={"_fields": "id"}).status_code == 200
    error(wrong.post("/wp/v2/posts", json={"title": "x"}), 401, "rest_cannot_create")
    error(wrong.get("/wp/v2/users/me"), 401, "rest_not_logged_in")


def test_early_auth_refuses_bad_credentials_but_not_an_empty_password(site: Site) -> None:
    """With a plugin resolving the user early, bad credentials fail every request with 401; an empty
    application password is no credential at all and runs anonymously in both modes."""
    body = error(site.client((site.auth[0], "wrong password"), early=True).get("/wp/v2/posts"), 401,
                 "incorrect_password")
    assert body["message"] == "The provided password is an invalid application password."
    error(site.client(("nobody-at-all", "wrong password"), early=True).get("/wp/v2/posts"), 401, "invalid_username")
    empty = site.client((site.auth[0], ""), early=True)
    assert empty.get("/wp/v2/posts", params={"_fields": "id"}).status_code == 200
    error(empty.get("/wp/v2/users/me"), 401, "rest_not_logged_in")
    assert site.client(site.auth, early=True).get("/wp/v2/users/me").status_code == 200


def test_rest_route_query_and_envelope(site: Site) -> None:
    a = post(site.editor, title=f"{site.token} env")
    base = site.root.removesuffix("/wp-json")
    r = site.editor.get(base + "/", params={"rest_route": f"/wp/v2/posts/{a['id']}", "context": "edit"})
    assert r.status_code == 200 and r.json()["id"] == a["id"]
    wrapped = site.editor.get("/wp/v2/posts/987654321", params={"_envelope": "1"})
    assert wrapped.status_code == 200 and wrapped.json()["status"] == 404
    assert wrapped.json()["body"]["code"] == "rest_post_invalid_id"


def test_embed_adds_the_author_the_featured_image_and_the_terms(site: Site) -> None:
    token = site.token
    media = site.editor.post("/wp/v2/media", files={"file": (f"{token}.png", PNG, "image/png")}).json()
    a = post(site.editor, title=f"{token} embed", status="publish", featured_media=media["id"])
    embedded = site.editor.get(f"/wp/v2/posts/{a['id']}", params={"_embed": "1"}).json()["_embedded"]
    assert set(embedded) == {"author", "wp:featuredmedia", "wp:term"}
    assert embedded["author"][0]["id"] == a["author"] and "meta" not in embedded["author"][0]
    assert embedded["wp:featuredmedia"][0]["id"] == media["id"] and "guid" not in embedded["wp:featuredmedia"][0]
    assert [[t["slug"] for t in terms] for terms in embedded["wp:term"]] == [["uncategorized"], []]
    only = site.editor.get("/wp/v2/posts", params={"_embed": "author", "include": str(a["id"])}).json()
    assert set(only[0]["_embedded"]) == {"author"}
    assert site.visitor.get(f"/wp/v2/posts/{a['id']}", params={"_embed": "1", "_fields": "id"}).json() == {"id": a["id"]}


def test_an_application_password_is_issued_once_and_revoked(site: Site) -> None:
    r = site.editor.post("/wp/v2/users/me/application-passwords", json={"name": f"{site.token} app"})
    assert r.status_code == 201
    issued = r.json()
    password = issued["password"]
    assert len(password.replace(" ", "")) == 24 and password.count(" ") == 5
    fresh = site.client((site.auth[0], password))
    assert fresh.get("/wp/v2/users/me").status_code == 200
    listed = site.editor.get("/wp/v2/users/me/application-passwords").json()
    assert issued["uuid"] in [p["uuid"] for p in listed] and all("password" not in p for p in listed)
    gone = site.editor.delete(f"/wp/v2/users/me/application-passwords/{issued['uuid']}")
    assert gone.status_code == 200 and gone.json()["deleted"] is True
    error(fresh.get("/wp/v2/users/me"), 401, "rest_not_logged_in")


def test_application_password_names_are_unique_in_the_databases_collation(site: Site) -> None:
    name = f"{site.token} Unique"
    r = site.editor.post("/wp/v2/users/me/application-passwords", json={"name": name})
    assert r.status_code == 201
    try:
        for again in (name, name.upper()):
            error(site.editor.post("/wp/v2/users/me/application-passwords", json={"name": again}), 409,
                  "application_password_duplicate_name")
    finally:
        site.editor.delete(f"/wp/v2/users/me/application-passwords/{r.json()['uuid']}")


def test_an_application_password_is_read_renamed_and_introspected(site: Site) -> None:
    base, token = "/wp/v2/users/me/application-passwords", site.token
    r = site.editor.post(base, json={"name": f"{token} app"})
    assert r.status_code == 201
    issued = r.json()
    try:
        one = site.editor.get(f"{base}/{issued['uuid']}")
        assert one.status_code == 200 and one.json()["name"] == f"{token} app" and "password" not in one.json()
        renamed = site.editor.post(f"{base}/{issued['uuid']}", json={"name": f"{token} renamed"})
        assert renamed.status_code == 200 and renamed.json()["name"] == f"{token} renamed"
        fresh = site.client((site.auth[0], issued["password"]))
        own = fresh.get(f"{base}/introspect")
        assert own.status_code == 200 and own.json()["uuid"] == issued["uuid"]
        missing = "00000000-0000-4000-8000-000000000000"
        error(site.editor.get(f"{base}/{missing}"), 404, "rest_application_password_not_found")
        error(site.editor.post(f"{base}/{missing}", json={"name": "x"}), 404, "rest_application_password_not_found")
        error(site.editor.delete(f"{base}/{missing}"), 404, "rest_application_password_not_found")
        error(site.visitor.get(f"{base}/introspect"), 401, "rest_not_logged_in")
    finally:
        gone = site.editor.delete(f"{base}/{issued['uuid']}")
    assert gone.status_code == 200 and "_links" not in gone.json()["previous"]
