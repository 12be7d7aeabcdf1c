"""Media uploads (raw and multipart), their errors, listing by operation key, updates and deletes."""

from __future__ import annotations

import hashlib
import struct
import zlib
from collections.abc import Callable

import httpx
import pytest

from durable_harness.fakes.wordpress import WordPressFake

ROOT = "http://wordpress.dh.test/wp-json"
UPLOADS = "http://wordpress.dh.test/wp-content/uploads/2026/01"


def png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")


GIF = b"GIF89a" + struct.pack("<HH", 7, 5) + b"\x00" * 8
JPEG = b"\xff\xd8\xff\xe0" + struct.pack(">H", 4) + b"\x00\x00" + b"\xff\xc0" + struct.pack(">HBHH", 11, 8, 30, 40) + b"\x00" * 8


def raw(client: httpx.Client, data: bytes, filename: str = "x.png", **params: str) -> httpx.Response:
    return client.post("/wp/v2/media", content=data, params=params, headers={
        "content-type": "image/png", "content-disposition": f'attachment; filename="{filename}"'})


def test_raw_upload(client: httpx.Client, wordpress: WordPressFake) -> None:
    data = png(640, 480)
    r = raw(client, data, "hero.png", **{"meta[operation_key]": "job-1/img-1"})
    assert r.status_code == 201
    media = r.json()
    assert r.headers["x-wp-upload-attachment-id"] == str(media["id"])
    assert r.headers["location"] == f"{ROOT}/wp/v2/media/{media['id']}"
    assert media["source_url"] == f"{UPLOADS}/hero.png"
    assert (media["status"], media["type"], media["post"]) == ("inherit", "attachment", None)
    assert (media["media_type"], media["mime_type"]) == ("image", "image/png")
    assert media["title"]["raw"] == "hero" and media["meta"] == {"operation_key": "job-1/img-1"}
    details = media["media_details"]
    assert (details["width"], details["height"], details["file"], details["filesize"]) == (640, 480, "2026/01/hero.png", len(data))
    assert details["sizes"]["thumbnail"]["file"] == "hero-150x150.png"
    assert details["sizes"]["medium"]["width"] == 300 and details["sizes"]["full"]["source_url"] == media["source_url"]
    truth = wordpress.truth()["media"][0]
    assert truth["sha256"] == hashlib.sha256(data).hexdigest() and truth["size"] == len(data)
    assert truth["created_by"] == "editor/app-password#1" and truth["created_at"] == 0.0
    assert truth["meta"] == {"operation_key": "job-1/img-1"}


def test_uploaded_file_is_served(wp_client: Callable[..., httpx.Client], client: httpx.Client) -> None:
    data = png(1, 1)
    url = raw(client, data).json()["source_url"]
    site = wp_client(None, "site")  # absolute URLs, outside the REST API
    got = site.get(url)
    assert got.status_code == 200 and got.content == data and got.headers["content-type"] == "image/png"
    assert site.get(f"{UPLOADS}/missing.png").status_code == 404


def test_small_image_has_no_sub_sizes_and_gif_jpeg_dimensions(client: httpx.Client) -> None:
    tiny = raw(client, png(3, 2)).json()["media_details"]
    assert (tiny["width"], tiny["height"], tiny["sizes"]) == (3, 2, {})
    gif = raw(client, GIF, "a.gif").json()
    assert (gif["mime_type"], gif["media_details"]["width"], gif["media_details"]["height"]) == ("image/gif", 7, 5)
    jpeg = raw(client, JPEG, "b.jpg").json()
    assert (jpeg["mime_type"], jpeg["media_details"]["width"], jpeg["media_details"]["height"]) == ("image/jpeg", 40, 30)


def test_same_filename_is_not_deduplicated(client: httpx.Client, wordpress: WordPressFake) -> None:
    first, second = raw(client, png(1, 1), "x.png").json(), raw(client, png(1, 1), "x.png").json()
    assert first["id"] != second["id"]
    assert second["source_url"] == f"{UPLOADS}/x-1.png" and second["title"]["raw"] == "x-1"
    assert raw(client, png(1, 1), "x.png").json()["source_url"] == f"{UPLOADS}/x-2.png"
    assert [m["filename"] for m in wordpress.truth()["media"]] == ["x.png", "x-1.png", "x-2.png"]


def test_wrong_extension_is_corrected_by_content(client: httpx.Client) -> None:
    media = raw(client, GIF, "photo.png").json()
    assert media["mime_type"] == "image/gif" and media["source_url"].endswith("/photo.gif")


def test_multipart_upload_with_fields(client: httpx.Client) -> None:
    post = client.post("/wp/v2/posts", json={"title": "parent"}).json()["id"]
    r = client.post("/wp/v2/media", files={"file": ("chart.png", png(10, 10), "image/png")}, data={
        "title": "Chart", "alt_text": "A <b>chart</b>", "caption": "Fig 1", "description": "Long text",
        "post": str(post), "meta[operation_key]": "job-1/img-2"})
    assert r.status_code == 201
    media = r.json()
    assert (media["title"]["raw"], media["alt_text"], media["caption"]["raw"]) == ("Chart", "A chart", "Fig 1")
    assert media["description"]["raw"] == "Long text" and media["post"] == post
    assert media["meta"] == {"operation_key": "job-1/img-2"}


def test_multipart_meta_from_query_string(client: httpx.Client) -> None:
    r = client.post("/wp/v2/media", params={"meta[operation_key]": "q"}, files={"file": ("q.png", png(1, 1), "image/png")})
    assert r.json()["meta"] == {"operation_key": "q"}


@pytest.mark.parametrize(("headers", "body", "code"), [
    ({"content-type": "image/png", "content-disposition": 'attachment; filename="x.png"'}, b"", "rest_upload_no_data"),
    ({"content-disposition": 'attachment; filename="x.png"'}, b"\x89PNG", "rest_upload_no_content_type"),
    ({"content-type": "image/png"}, b"\x89PNG", "rest_upload_no_content_disposition"),
    ({"content-type": "image/png", "content-disposition": "attachment"}, b"\x89PNG", "rest_upload_invalid_disposition"),
])
def test_raw_upload_header_errors(client: httpx.Client, wordpress: WordPressFake, headers: dict[str, str],
                                  body: bytes, code: str) -> None:
    r = client.post("/wp/v2/media", content=body, headers=headers)
    assert (r.status_code, r.json()["code"]) == (400, code)
    assert wordpress.mutations() == 0


def test_content_md5_mismatch_is_412(client: httpx.Client) -> None:
    r = client.post("/wp/v2/media", content=png(1, 1), headers={
        "content-type": "image/png", "content-disposition": 'attachment; filename="x.png"', "content-md5": "0" * 32})
    assert (r.status_code, r.json()["code"]) == (412, "rest_upload_hash_mismatch")


@pytest.mark.parametrize(("filename", "data"), [("page.html", b"<p>hello</p>"), ("fake.png", b"not really a png"), ("fake.pdf", b"hello")])
def test_disallowed_types_are_500_with_the_upload_path_code(client: httpx.Client, wordpress: WordPressFake,
                                                            filename: str, data: bytes) -> None:
    r = raw(client, data, filename)
    assert (r.status_code, r.json()["code"]) == (500, "rest_upload_sideload_error")
    assert r.json()["message"] == "Sorry, you are not allowed to upload this file type."
    multi = client.post("/wp/v2/media", files={"file": (filename, data, "application/octet-stream")})
    assert (multi.status_code, multi.json()["code"]) == (500, "rest_upload_unknown_error")
    assert wordpress.truth()["media"] == []


def test_multipart_without_a_file_part(client: httpx.Client) -> None:
    named_wrong = client.post("/wp/v2/media", files={"upload": ("x.png", png(1, 1), "image/png")})
    assert (named_wrong.status_code, named_wrong.json()["code"]) == (500, "rest_upload_unknown_error")
    fields_only = client.post("/wp/v2/media", files={"title": (None, "x")})
    assert (fields_only.status_code, fields_only.json()["code"]) == (400, "rest_upload_no_data")


def test_visitor_cannot_upload(anon: httpx.Client) -> None:
    r = raw(anon, png(1, 1))
    assert (r.status_code, r.json()["code"]) == (401, "rest_cannot_create")


def test_upload_with_bad_meta_exists_after_the_error(client: httpx.Client, wordpress: WordPressFake) -> None:
    r = client.post("/wp/v2/media", files={"file": ("m.png", png(1, 1), "image/png")},
                    data={"meta[operation_key][]": "a"})
    assert (r.status_code, r.json()["code"]) == (400, "rest_invalid_type")
    assert len(wordpress.truth()["media"]) == 1 and wordpress.mutations() == 1


def test_media_listing_get_and_operation_key(client: httpx.Client) -> None:
    a = raw(client, png(1, 1), "a.png", **{"meta[operation_key]": "k-a"}).json()["id"]
    b = raw(client, png(1, 1), "b.png").json()["id"]
    listed = client.get("/wp/v2/media", params={"per_page": 1})
    assert listed.headers["x-wp-total"] == "2" and listed.headers["x-wp-totalpages"] == "2"
    assert [m["id"] for m in listed.json()] == [b] and "next" in listed.links
    keyed = client.get("/wp/v2/media", params={"context": "edit", "operation_key": "k-a"})
    assert [m["id"] for m in keyed.json()] == [a]
    assert client.get("/wp/v2/media", params={"operation_key": "zzz"}).json() == []
    assert client.get(f"/wp/v2/media/{a}").json()["source_url"] == f"{UPLOADS}/a.png"
    any_status = client.get("/wp/v2/media", params={"status": "any"})  # media statuses are inherit/private/trash
    assert any_status.status_code == 400 and any_status.json()["data"]["details"]["status"]["code"] == "rest_not_in_enum"


def test_media_update_and_delete(client: httpx.Client, wordpress: WordPressFake) -> None:
    media = raw(client, png(1, 1)).json()["id"]
    r = client.post(f"/wp/v2/media/{media}", json={
        "alt_text": "<i>alt</i>", "title": "New", "caption": "Cap", "meta": {"operation_key": "k"}})
    assert r.status_code == 200
    assert (r.json()["alt_text"], r.json()["title"]["raw"], r.json()["caption"]["raw"]) == ("alt", "New", "Cap")
    assert r.json()["meta"] == {"operation_key": "k"}
    not_trashable = client.delete(f"/wp/v2/media/{media}")
    assert (not_trashable.status_code, not_trashable.json()["code"]) == (501, "rest_trash_not_supported")
    deleted = client.delete(f"/wp/v2/media/{media}", params={"force": "true"})
    assert deleted.json()["deleted"] is True and deleted.json()["previous"]["id"] == media
    assert client.get(f"/wp/v2/media/{media}").json()["code"] == "rest_post_invalid_id"
    assert wordpress.truth()["media"][0]["deleted"] is True


def test_deleting_featured_media_clears_it_from_posts(client: httpx.Client) -> None:
    media = raw(client, png(1, 1)).json()["id"]
    post = client.post("/wp/v2/posts", json={"title": "x", "featured_media": media}).json()["id"]
    client.delete(f"/wp/v2/media/{media}", params={"force": "true"})
    assert client.get(f"/wp/v2/posts/{post}", params={"context": "edit"}).json()["featured_media"] == 0


def test_setting_featured_media_does_not_attach(client: httpx.Client) -> None:
    media = raw(client, png(1, 1)).json()["id"]
    client.post("/wp/v2/posts", json={"title": "x", "featured_media": media})
    assert client.get(f"/wp/v2/media/{media}").json()["post"] is None


def test_parent_must_exist_and_not_be_an_attachment(client: httpx.Client) -> None:
    missing = client.post("/wp/v2/media", params={"post": "999"}, files={"file": ("x.png", png(1, 1), "image/png")})
    assert (missing.status_code, missing.json()["code"]) == (403, "rest_cannot_edit")
    media = raw(client, png(1, 1)).json()["id"]
    nested = client.post("/wp/v2/media", params={"post": str(media)}, files={"file": ("y.png", png(1, 1), "image/png")})
    assert (nested.status_code, nested.json()["code"]) == (400, "rest_invalid_param")


def test_media_type_and_mime_type_filters(client: httpx.Client) -> None:
    png_id = raw(client, png(1, 1), "p.png").json()["id"]
    gif_id = raw(client, GIF, "g.gif").json()["id"]
    assert {m["id"] for m in client.get("/wp/v2/media", params={"media_type": "image"}).json()} == {png_id, gif_id}
    assert client.get("/wp/v2/media", params={"media_type": "video"}).json() == []
    assert [m["id"] for m in client.get("/wp/v2/media", params={"mime_type": "image/gif"}).json()] == [gif_id]
