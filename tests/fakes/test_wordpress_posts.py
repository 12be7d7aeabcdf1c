"""The fake WordPress posts endpoints, driven through the gate as a candidate would."""

from __future__ import annotations

import httpx

from durable_harness.fakes.wordpress import WordPressFake
from durable_harness.harness._clock import VirtualClock
from durable_harness.harness._gate import Gate
from durable_harness.harness._history import History

AUTH = ("editor", "abcd EFGH ijkl MNOP qrst UVWX")


def error(response: httpx.Response) -> tuple[int, str]:
    body = response.json()
    assert body["data"]["status"] == response.status_code, body
    return response.status_code, body["code"]


def test_create_answers_201_with_location_and_the_edit_context(client: httpx.Client) -> None:
    r = client.post("/wp/v2/posts", json={"title": "Hello", "content": "Body"})
    assert r.status_code == 201
    post = r.json()
    assert r.headers["location"] == f"http://wordpress.dh.test/wp-json/wp/v2/posts/{post['id']}"
    assert post["title"] == {"raw": "Hello", "rendered": "Hello"}
    assert post["content"]["raw"] == "Body" and post["content"]["rendered"] == "<p>Body</p>\n"
    assert post["status"] == "draft" and post["type"] == "post"
    assert post["meta"] == {"operation_key": ""}
    assert post["categories"] == [1] and post["featured_media"] == 0
    assert r.headers["content-type"] == "application/json; charset=UTF-8"
    assert r.headers["x-robots-tag"] == "noindex" and r.headers["x-content-type-options"] == "nosniff"
    assert '<http://wordpress.dh.test/wp-json/>; rel="https://api.w.org/"' in r.headers["link"]
    assert b"http:\\/\\/wordpress.dh.test" in r.content  # PHP's json_encode escapes slashes


def test_draft_has_empty_slug_query_link_and_generated_slug(client: httpx.Client) -> None:
    post = client.post("/wp/v2/posts", json={"title": "My First Post"}).json()
    assert post["slug"] == ""
    assert post["link"] == f"http://wordpress.dh.test/?p={post['id']}"
    assert post["generated_slug"] == "my-first-post"
    assert post["permalink_template"] == "http://wordpress.dh.test/%postname%/"


def test_publish_assigns_slug_from_title_and_dedupes_with_suffix(client: httpx.Client) -> None:
    first = client.post("/wp/v2/posts", json={"title": "Same", "status": "publish"}).json()
    second = client.post("/wp/v2/posts", json={"title": "Same", "status": "publish"}).json()
    assert (first["slug"], second["slug"]) == ("same", "same-2")
    assert first["link"] == "http://wordpress.dh.test/same/"


def test_explicit_slug_on_a_draft_is_made_unique(client: httpx.Client) -> None:
    client.post("/wp/v2/posts", json={"title": "A", "slug": "job-1", "status": "publish"})
    draft = client.post("/wp/v2/posts", json={"title": "B", "slug": "Job 1"}).json()
    assert draft["slug"] == "job-1-2"


def test_form_body_is_accepted(client: httpx.Client) -> None:
    r = client.post("/wp/v2/posts", data={"title": "Form", "meta[operation_key]": "form-key", "status": "pending"})
    assert r.status_code == 201
    assert r.json()["meta"] == {"operation_key": "form-key"} and r.json()["status"] == "pending"


def test_title_may_be_given_as_raw_object(client: httpx.Client) -> None:
    post = client.post("/wp/v2/posts", json={"title": {"raw": "Raw title"}, "content": {"raw": "x"}}).json()
    assert post["title"]["raw"] == "Raw title" and post["content"]["raw"] == "x"


def test_rendered_title_escapes_ampersand(client: httpx.Client) -> None:
    post = client.post("/wp/v2/posts", json={"title": "Salt & Pepper"}).json()
    assert post["title"]["rendered"] == "Salt &#038; Pepper"


def test_empty_title_content_and_excerpt_is_400_and_creates_nothing(client: httpx.Client, wordpress: WordPressFake) -> None:
    r = client.post("/wp/v2/posts", json={"title": "", "status": "draft"})
    assert error(r) == (400, "empty_content")
    assert r.json()["message"] == "Content, title, and excerpt are empty."
    assert wordpress.truth()["posts"] == [] and wordpress.mutations() == 0


def test_id_in_create_body_is_rest_post_exists(client: httpx.Client, anon: httpx.Client) -> None:
    assert error(client.post("/wp/v2/posts", json={"id": 5, "title": "x"})) == (400, "rest_post_exists")
    assert error(anon.post("/wp/v2/posts", json={"id": 5, "title": "x"})) == (400, "rest_post_exists")


def test_bad_json_is_rest_invalid_json(client: httpx.Client) -> None:
    r = client.post("/wp/v2/posts", content=b"{not json", headers={"content-type": "application/json"})
    assert error(r) == (400, "rest_invalid_json")
    assert r.json()["data"]["json_error_code"] == 4


def test_unknown_route_and_method_are_rest_no_route(client: httpx.Client) -> None:
    assert error(client.get("/wp/v2/nothing")) == (404, "rest_no_route")
    assert error(client.delete("/wp/v2/posts")) == (404, "rest_no_route")
    assert error(client.get("/wp/v2/posts/abc")) == (404, "rest_no_route")
    r = client.get("/wp/v2/nothing")
    assert r.json()["message"] == "No route was found matching the URL and request method."


def test_invalid_status_is_rest_invalid_param_not_in_enum(client: httpx.Client) -> None:
    r = client.post("/wp/v2/posts", json={"title": "x", "status": "published"})
    assert error(r) == (400, "rest_invalid_param")
    body = r.json()
    assert body["message"] == "Invalid parameter(s): status"
    assert body["data"]["details"]["status"]["code"] == "rest_not_in_enum"
    assert body["data"]["params"]["status"] == "status is not one of publish, future, draft, pending, and private."


def test_tag_names_are_rejected(client: httpx.Client) -> None:
    r = client.post("/wp/v2/posts", json={"title": "x", "tags": ["seo"]})
    assert error(r) == (400, "rest_invalid_param")
    assert r.json()["data"]["params"]["tags"] == "tags[0] is not of type integer."


def test_get_update_and_modified(client: httpx.Client, clock: VirtualClock) -> None:
    post = client.post("/wp/v2/posts", json={"title": "T", "content": "C"}).json()
    clock.sleep(90)
    r = client.patch(f"/wp/v2/posts/{post['id']}", json={"excerpt": "E"})
    assert r.status_code == 200
    updated = r.json()
    assert updated["title"]["raw"] == "T" and updated["excerpt"]["raw"] == "E"
    assert updated["modified"] == "2026-01-05T09:01:30"
    clock.sleep(30)
    again = client.put(f"/wp/v2/posts/{post['id']}", json={}).json()  # nothing changed, modified moves anyway
    assert again["modified"] == "2026-01-05T09:02:00"
    got = client.get(f"/wp/v2/posts/{post['id']}", params={"context": "edit"})
    assert got.status_code == 200 and got.json()["excerpt"]["raw"] == "E"
    view = client.get(f"/wp/v2/posts/{post['id']}").json()
    assert "raw" not in view["title"] and "password" not in view and "generated_slug" not in view


def test_drafts_have_floating_dates_until_published(client: httpx.Client, clock: VirtualClock) -> None:
    post = client.post("/wp/v2/posts", json={"title": "Float"}).json()
    assert post["date"] == "2026-01-05T09:00:00"
    clock.sleep(600)
    saved = client.post(f"/wp/v2/posts/{post['id']}", json={"content": "more"}).json()
    assert saved["date"] == "2026-01-05T09:10:00"
    clock.sleep(600)
    published = client.post(f"/wp/v2/posts/{post['id']}", json={"status": "publish"}).json()
    assert published["date"] == "2026-01-05T09:20:00" and published["slug"] == "float"
    clock.sleep(600)
    assert client.post(f"/wp/v2/posts/{post['id']}", json={"content": "x"}).json()["date"] == "2026-01-05T09:20:00"


def test_publish_with_future_date_is_future_and_future_in_past_is_publish(client: httpx.Client) -> None:
    future = client.post("/wp/v2/posts", json={"title": "F", "status": "publish", "date": "2026-02-01T00:00:00"})
    assert future.json()["status"] == "future"
    past = client.post("/wp/v2/posts", json={"title": "P", "status": "future", "date": "2025-01-01T00:00:00"})
    assert past.json()["status"] == "publish"


def test_invalid_date_is_400(client: httpx.Client) -> None:
    r = client.post("/wp/v2/posts", json={"title": "x", "date": "yesterday"})
    assert error(r) == (400, "rest_invalid_param")
    assert r.json()["data"]["details"]["date"]["code"] == "rest_invalid_date"


def test_unregistered_and_rank_math_meta_are_dropped_silently(client: httpx.Client, wordpress: WordPressFake) -> None:
    r = client.post("/wp/v2/posts", json={"title": "x", "meta": {"other": "v", "rank_math_title": "SEO"}})
    assert r.status_code == 201 and r.json()["meta"] == {"operation_key": ""}
    assert wordpress.truth()["posts"][0]["rank_math"] == {}


def test_non_object_meta_is_rest_invalid_param(client: httpx.Client, wordpress: WordPressFake) -> None:
    r = client.post("/wp/v2/posts", json={"title": "x", "meta": "nope"})
    assert error(r) == (400, "rest_invalid_param")
    assert r.json()["data"]["params"] == {"meta": "Invalid parameter."}
    assert wordpress.truth()["posts"] == []


def test_non_string_operation_key_is_an_error_after_the_write(client: httpx.Client, wordpress: WordPressFake) -> None:
    r = client.post("/wp/v2/posts", json={"title": "Saved anyway", "meta": {"operation_key": 42}})
    assert error(r) == (400, "rest_invalid_type")
    assert r.json()["message"] == "meta.operation_key is not of type string."
    assert "id" not in r.json()["data"]
    posts = wordpress.truth()["posts"]
    assert [p["title"] for p in posts] == ["Saved anyway"] and posts[0]["meta"] == {"operation_key": ""}
    assert wordpress.mutations() == 1
    listed = client.get("/wp/v2/posts", params={"status": "any", "context": "edit", "search": "Saved anyway"})
    assert [p["id"] for p in listed.json()] == [posts[0]["id"]]


def test_update_with_bad_meta_commits_the_update_then_errors(client: httpx.Client, wordpress: WordPressFake) -> None:
    post = client.post("/wp/v2/posts", json={"title": "Old"}).json()
    r = client.post(f"/wp/v2/posts/{post['id']}", json={"title": "New", "meta": {"operation_key": ["list"]}})
    assert error(r) == (400, "rest_invalid_type")
    assert wordpress.truth()["posts"][0]["title"] == "New"


def test_null_meta_value_deletes_it(client: httpx.Client) -> None:
    post = client.post("/wp/v2/posts", json={"title": "x", "meta": {"operation_key": "k"}}).json()
    cleared = client.post(f"/wp/v2/posts/{post['id']}", json={"meta": {"operation_key": None}}).json()
    assert cleared["meta"] == {"operation_key": ""}


def test_featured_media_silent_drop_rules(client: httpx.Client, wordpress: WordPressFake) -> None:
    png = _png(2, 2)
    media = client.post("/wp/v2/media", content=png, headers={
        "content-type": "image/png", "content-disposition": 'attachment; filename="f.png"'}).json()
    other = client.post("/wp/v2/posts", json={"title": "other"}).json()
    post = client.post("/wp/v2/posts", json={"title": "x", "featured_media": media["id"]}).json()
    assert post["featured_media"] == media["id"]
    missing = client.post(f"/wp/v2/posts/{post['id']}", json={"featured_media": 9999})
    assert missing.status_code == 200 and missing.json()["featured_media"] == media["id"]  # unchanged
    not_image = client.post(f"/wp/v2/posts/{post['id']}", json={"featured_media": other["id"]})
    assert not_image.status_code == 200 and not_image.json()["featured_media"] == 0  # cleared
    wordpress.truth()  # still serialisable


def test_trash_then_410_then_force_delete_then_404(client: httpx.Client, wordpress: WordPressFake) -> None:
    post = client.post("/wp/v2/posts", json={"title": "Bye", "status": "publish"}).json()
    trashed = client.delete(f"/wp/v2/posts/{post['id']}")
    assert trashed.status_code == 200 and trashed.json()["status"] == "trash"
    assert trashed.json()["slug"] == "bye__trashed"
    assert error(client.delete(f"/wp/v2/posts/{post['id']}")) == (410, "rest_already_trashed")
    gone = client.delete(f"/wp/v2/posts/{post['id']}", params={"force": "true"})
    assert gone.status_code == 200 and gone.json()["deleted"] is True
    assert gone.json()["previous"]["id"] == post["id"]
    assert error(client.get(f"/wp/v2/posts/{post['id']}")) == (404, "rest_post_invalid_id")
    truth = wordpress.truth()["posts"][0]
    assert truth["deleted"] is True and [e["action"] for e in truth["events"]] == ["create", "trash", "delete"]


def test_trash_frees_the_slug(client: httpx.Client) -> None:
    first = client.post("/wp/v2/posts", json={"title": "Slug", "status": "publish"}).json()
    client.delete(f"/wp/v2/posts/{first['id']}")
    assert client.post("/wp/v2/posts", json={"title": "Slug", "status": "publish"}).json()["slug"] == "slug"


def test_get_of_missing_or_other_type_is_rest_post_invalid_id(client: httpx.Client) -> None:
    assert error(client.get("/wp/v2/posts/999")) == (404, "rest_post_invalid_id")
    media = client.post("/wp/v2/media", content=_png(1, 1), headers={
        "content-type": "image/png", "content-disposition": 'attachment; filename="a.png"'}).json()
    assert error(client.get(f"/wp/v2/posts/{media['id']}")) == (404, "rest_post_invalid_id")
    assert error(client.post("/wp/v2/posts/999", json={"title": "x"})) == (404, "rest_post_invalid_id")


def test_single_get_has_alternate_link(client: httpx.Client) -> None:
    post = client.post("/wp/v2/posts", json={"title": "Alt", "status": "publish"}).json()
    r = client.get(f"/wp/v2/posts/{post['id']}")
    assert '<http://wordpress.dh.test/alt/>; rel="alternate"; type=text/html' in r.headers["link"]


def test_revisions_consume_ids(client: httpx.Client) -> None:
    first = client.post("/wp/v2/posts", json={"title": "a"}).json()
    client.post(f"/wp/v2/posts/{first['id']}", json={"title": "b"})  # the first update makes a revision
    second = client.post("/wp/v2/posts", json={"title": "c"}).json()
    assert second["id"] == first["id"] + 2


def test_method_override_head_fields_and_envelope(client: httpx.Client) -> None:
    post = client.post("/wp/v2/posts", json={"title": "x"}).json()
    r = client.post(f"/wp/v2/posts/{post['id']}", params={"_method": "DELETE"})
    assert r.json()["status"] == "trash"
    head = client.head("/wp/v2/posts", params={"status": "trash"})
    assert head.status_code == 200 and head.content == b"" and head.headers["x-wp-total"] == "1"
    fields = client.get(f"/wp/v2/posts/{post['id']}", params={"_fields": "id,title.raw", "context": "edit"})
    assert fields.json() == {"id": post["id"], "title": {"raw": "x"}}
    envelope = client.get("/wp/v2/posts/999", params={"_envelope": "1"})
    assert envelope.status_code == 200 and envelope.json()["status"] == 404
    assert envelope.json()["body"]["code"] == "rest_post_invalid_id"


def test_plain_permalink_rest_route_and_uploads_outside_the_api(clock: VirtualClock, wordpress: WordPressFake) -> None:
    transport = Gate(clock, History(), [wordpress]).transport("plain")
    with httpx.Client(base_url="http://wordpress.dh.test", transport=transport, auth=AUTH) as site:
        assert site.get("/", params={"rest_route": "/wp/v2/posts"}).status_code == 200
        assert site.get("/some-page/").status_code == 404
        assert site.get("/wp-json/").json()["namespaces"] == ["oembed/1.0", "rankmath/v1", "wp/v2", "wp-site-health/v1"]


def _png(width: int, height: int) -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")
