"""Posts and pages: create, read, update, delete, the id a request acts on, method overrides,
revisions. Each case runs on the fake and on the real WordPress (see conftest)."""

from __future__ import annotations

from _conformance import Site, error, post

def test_a_draft_is_created_with_the_edit_context_and_no_slug(site: Site) -> None:
    token = site.token
    r = site.editor.post("/wp/v2/posts", json={"title": f"{token} draft", "status": "draft",
                                               "meta": {"operation_key": token}})
    assert r.status_code == 201
    body = r.json()
    assert r.headers["location"].endswith(f"/wp/v2/posts/{body['id']}")
    assert (body["status"], body["slug"], body["type"]) == ("draft", "", "post")
    assert body["link"].endswith(f"/?p={body['id']}")
    assert body["title"]["raw"] == f"{token} draft" and body["generated_slug"] == f"{token}-draft"
    assert body["meta"] == {"operation_key": token}
    assert body["categories"] == [1] and body["featured_media"] == 0

def test_empty_content_and_an_id_in_a_create_are_refused(site: Site) -> None:
    error(site.editor.post("/wp/v2/posts", json={"status": "draft"}), 400, "empty_content")
    error(site.editor.post("/wp/v2/posts", json={"title": "x", "id": 1}), 400, "rest_post_exists")
    error(site.visitor.post("/wp/v2/posts", json={"title": "x"}), 401, "rest_cannot_create")

def test_an_id_in_the_body_names_the_post_updated(site: Site) -> None:
    """Core reads params in the order JSON, POST, GET, URL: the body's id wins over the URL's."""
    token = site.token
    a, b = post(site.editor, title=f"{token} a"), post(site.editor, title=f"{token} b")
    r = site.editor.post(f"/wp/v2/posts/{a['id']}", json={"id": b["id"], "title": f"{token} b2"})
    assert r.status_code == 200 and r.json()["id"] == b["id"]
    assert site.editor.get(f"/wp/v2/posts/{a['id']}", params={"context": "edit"}).json()["title"]["raw"] == f"{token} a"
    assert site.editor.get(f"/wp/v2/posts/{b['id']}", params={"context": "edit"}).json()["title"]["raw"] == f"{token} b2"

def test_an_id_in_the_query_names_the_post_read(site: Site) -> None:
    token = site.token
    a, b = post(site.editor, title=f"{token} a"), post(site.editor, title=f"{token} b")
    r = site.editor.get(f"/wp/v2/posts/{a['id']}", params={"id": b["id"], "context": "edit"})
    assert r.status_code == 200 and r.json()["id"] == b["id"]

def test_an_id_in_the_body_names_the_post_deleted_and_a_missing_one_is_404(site: Site) -> None:
    token = site.token
    a, d = post(site.editor, title=f"{token} a"), post(site.editor, title=f"{token} d")
    r = site.editor.request("DELETE", f"/wp/v2/posts/{a['id']}", json={"id": d["id"], "force": True})
    assert r.status_code == 200 and r.json()["deleted"] is True and r.json()["previous"]["id"] == d["id"]
    error(site.editor.get(f"/wp/v2/posts/{d['id']}"), 404, "rest_post_invalid_id")
    assert site.editor.get(f"/wp/v2/posts/{a['id']}", params={"context": "edit"}).status_code == 200
    error(site.editor.put(f"/wp/v2/posts/{a['id']}", json={"id": 987654321}), 404, "rest_post_invalid_id")
    body = error(site.editor.post(f"/wp/v2/posts/{a['id']}", json={"id": "abc"}), 400, "rest_invalid_param")
    assert body["data"]["params"] == {"id": "id is not of type integer."}

def test_method_override_works_on_any_method(site: Site) -> None:
    """``_method`` and ``X-HTTP-Method-Override`` are honoured whatever the request's own method."""
    a = post(site.editor, title=f"{site.token} m")
    r = site.editor.get(f"/wp/v2/posts/{a['id']}", params={"_method": "DELETE"})
    assert r.status_code == 200 and r.json()["status"] == "trash"
    error(site.editor.get(f"/wp/v2/posts/{a['id']}", headers={"X-HTTP-Method-Override": "DELETE"}),
          410, "rest_already_trashed")

def test_trash_then_force_delete(site: Site) -> None:
    a = post(site.editor, title=f"{site.token} t", status="publish")
    r = site.editor.delete(f"/wp/v2/posts/{a['id']}")
    assert r.status_code == 200 and r.json()["status"] == "trash" and r.json()["slug"].endswith("__trashed")
    error(site.editor.delete(f"/wp/v2/posts/{a['id']}"), 410, "rest_already_trashed")
    r = site.editor.delete(f"/wp/v2/posts/{a['id']}", params={"force": "true"})
    assert r.status_code == 200 and r.json()["deleted"] is True
    error(site.editor.get(f"/wp/v2/posts/{a['id']}"), 404, "rest_post_invalid_id")

def test_revisions_copy_each_save(site: Site) -> None:
    """The first update always saves a revision; later ones when title, content or excerpt change."""
    token = site.token
    a = post(site.editor, title=f"{token} r")
    site.editor.post(f"/wp/v2/posts/{a['id']}", json={"title": f"{token} r2"})
    site.editor.post(f"/wp/v2/posts/{a['id']}", json={"content": "changed"})
    site.editor.post(f"/wp/v2/posts/{a['id']}", json={"comment_status": "closed"})  # no text change: none
    r = site.editor.get(f"/wp/v2/posts/{a['id']}/revisions", params={"context": "edit"})
    assert r.status_code == 200 and r.headers["x-wp-total"] == "2"
    revisions = r.json()
    assert [x["title"]["raw"] for x in revisions] == [f"{token} r2", f"{token} r2"]
    assert [x["content"]["raw"] for x in revisions] == ["changed", ""]
    assert {x["slug"] for x in revisions} == {f"{a['id']}-revision-v1"} and {x["parent"] for x in revisions} == {a["id"]}
    one = site.editor.get(f"/wp/v2/posts/{a['id']}/revisions/{revisions[0]['id']}")
    assert one.status_code == 200 and one.json()["id"] == revisions[0]["id"]
    edited = site.editor.get(f"/wp/v2/posts/{a['id']}", params={"context": "edit"}).json()
    assert edited["_links"]["version-history"][0]["count"] == 2
    error(site.visitor.get(f"/wp/v2/posts/{a['id']}/revisions"), 401, "rest_cannot_read")
    error(site.editor.get("/wp/v2/posts/987654321/revisions"), 404, "rest_post_invalid_parent")

def test_pages_are_posts_of_their_own_type(site: Site) -> None:
    token = site.token
    r = site.editor.post("/wp/v2/pages", json={"title": f"{token} page", "menu_order": 3})
    assert r.status_code == 201
    page = r.json()
    assert page["type"] == "page" and page["menu_order"] == 3 and page["parent"] == 0
    assert page["link"].endswith(f"/?page_id={page['id']}")
    assert not {"categories", "tags", "sticky", "format"} & set(page)
    error(site.editor.get(f"/wp/v2/posts/{page['id']}"), 404, "rest_post_invalid_id")
    listed = site.editor.get("/wp/v2/pages", params={"search": token, "status": "any"})
    assert [p["id"] for p in listed.json()] == [page["id"]]


def test_class_list_is_version_skew(site: Site) -> None:
    """``class_list`` arrived in WordPress 6.5 and the fake follows 6.5+; a 6.1 site has no such field.
    Nothing a control plane needs depends on it."""
    a = post(site.editor, title=f"{site.token} classes")
    if site.kind == "fake":
        assert "post" in a["class_list"] and f"post-{a['id']}" in a["class_list"]
    else:
        assert "class_list" not in a


def test_a_meta_type_error_comes_after_the_save(site: Site) -> None:
    """Registered meta is validated after the post is written: the 400 hides a completed create."""
    token = site.token
    body = error(site.editor.post("/wp/v2/posts", json={"title": f"{token} meta", "meta": {"operation_key": 5}}),
                 400, "rest_invalid_type")
    assert body["message"] == "meta.operation_key is not of type string."
    assert body["additional_data"] == [{"param": "meta.operation_key"}]
    listed = site.editor.get("/wp/v2/posts", params={"search": token, "status": "any"}).json()
    assert [p["title"]["rendered"] for p in listed] == [f"{token} meta"]
