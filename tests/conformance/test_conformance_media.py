"""Media: raw and multipart uploads, allowed types, size limits, Content-MD5, file-name sanitising,
search by file name. Each case runs on the fake and on the real WordPress (see conftest)."""

from __future__ import annotations

import hashlib

import pytest

from _conformance import PNG, Site, error, file_name, ids, multipart_upload, raw_upload

MiB = 1024 * 1024


def test_a_raw_upload_is_201_with_the_attachment_id_header(site: Site) -> None:
    token = site.token
    r = raw_upload(site.editor, f'attachment; filename="{token}.png"')
    assert r.status_code == 201, r.text
    media = r.json()
    assert r.headers["x-wp-upload-attachment-id"] == str(media["id"])
    assert r.headers["location"].endswith(f"/wp/v2/media/{media['id']}")
    assert (media["type"], media["status"], media["media_type"], media["mime_type"]) == \
        ("attachment", "inherit", "image", "image/png")
    assert media["title"]["raw"] == token and file_name(media) == f"{token}.png"
    assert (media["media_details"]["width"], media["media_details"]["height"]) == (1, 1)
    again = raw_upload(site.editor, f'attachment; filename="{token}.png"')
    assert file_name(again.json()) == f"{token}-1.png"


@pytest.mark.parametrize(("sent", "stored"), [
    ("../../etc/{t} My File (copy).PNG", "etc{t}-My-File-copy.png"),  # "/" is dropped, not split on
    ("{t} café crème.png", "{t}-cafe-creme.png"),
    ("{t}.php.png", "{t}.php_.png"),
    ("{t}-150x150.png", "{t}-150x150-1.png"),
    ("{t}.jpg", "{t}.png"),  # a PNG named .jpg is renamed to what it is
])
def test_raw_upload_file_names_are_sanitised_as_core_does(site: Site, sent: str, stored: str) -> None:
    token = site.token
    r = raw_upload(site.editor, f'attachment; filename="{sent.format(t=token)}"')
    assert r.status_code == 201, r.text
    assert file_name(r.json()) == stored.format(t=token)


def test_a_multipart_file_name_loses_its_directories(site: Site) -> None:
    """PHP keeps only the base name of a multipart file, so ``../../etc/`` never reaches WordPress."""
    token = site.token
    r = multipart_upload(site.editor, f"../../etc/{token} My File (copy).png")
    assert r.status_code == 201, r.text
    assert file_name(r.json()) == f"{token}-My-File-copy.png"


def test_text_and_pdf_uploads_are_files(site: Site) -> None:
    token = site.token
    text = multipart_upload(site.editor, f"{token}.txt", b"hello world\n", "text/plain")
    assert text.status_code == 201, text.text
    assert (text.json()["media_type"], text.json()["mime_type"]) == ("file", "text/plain")
    assert text.json()["media_details"] == {"filesize": 12, "sizes": {}}
    pdf = raw_upload(site.editor, f"attachment; filename={token}.pdf", b"%PDF-1.4\n%%EOF\n", "application/pdf")
    assert pdf.status_code == 201 and pdf.json()["mime_type"] == "application/pdf"


@pytest.mark.parametrize(("name", "data", "ctype"), [
    ("{t}.html", b"<p>hi</p>", "text/html"), ("{t}.pdf", b"not a pdf", "application/pdf"),
    ("{t}.png", b"not a png", "image/png"), ("{t}", PNG, "image/png"),
])
def test_disallowed_types_are_500(site: Site, name: str, data: bytes, ctype: str) -> None:
    token = site.token
    body = error(multipart_upload(site.editor, name.format(t=token), data, ctype), 500, "rest_upload_unknown_error")
    assert body["message"] == "Sorry, you are not allowed to upload this file type."
    error(raw_upload(site.editor, f"attachment; filename={name.format(t=token)}", data, ctype), 500,
          "rest_upload_sideload_error")


def test_upload_size_limits(site: Site) -> None:
    """A multipart file over upload_max_filesize (2 MiB) is refused; a raw body is not limited by it; a
    multipart body over post_max_size (8 MiB) arrives without its parts."""
    token = site.token
    big = PNG + b"\0" * (3 * MiB)
    body = error(multipart_upload(site.editor, f"{token}.png", big), 500, "rest_upload_unknown_error")
    assert body["message"] == "The uploaded file exceeds the upload_max_filesize directive in php.ini."
    assert raw_upload(site.editor, f"attachment; filename={token}.png", big).status_code == 201
    huge = PNG + b"\0" * (9 * MiB)
    error(multipart_upload(site.editor, f"{token}.png", huge), 400, "rest_upload_no_content_disposition")


def test_a_wrong_content_md5_is_412_raw_or_multipart(site: Site) -> None:
    token = site.token
    error(multipart_upload(site.editor, f"{token}.png", **{"content-md5": "0" * 32}), 412, "rest_upload_hash_mismatch")
    error(raw_upload(site.editor, f"attachment; filename={token}.png", **{"content-md5": "0" * 32}), 412,
          "rest_upload_hash_mismatch")
    right = hashlib.md5(PNG, usedforsecurity=False).hexdigest()
    assert multipart_upload(site.editor, f"{token}.png", **{"content-md5": right}).status_code == 201


def test_upload_errors_for_missing_parts(site: Site) -> None:
    error(site.editor.post("/wp/v2/media", content=b"", headers={"content-type": "image/png"}), 400, "rest_upload_no_data")
    error(site.editor.post("/wp/v2/media", content=PNG, headers={"content-type": "image/png"}), 400,
          "rest_upload_no_content_disposition")
    error(site.visitor.post("/wp/v2/media", content=PNG, headers={"content-type": "image/png",
                                                                  "content-disposition": "attachment; filename=x.png"}),
          401, "rest_cannot_create")


def test_media_search_matches_the_file_name(site: Site) -> None:
    """Core (6.0+) also searches ``_wp_attached_file``: a title that does not say the name still matches."""
    token = site.token
    r = multipart_upload(site.editor, f"{token}-shot.png", fields={"title": "An unrelated title"})
    assert r.status_code == 201 and r.json()["title"]["raw"] == "An unrelated title"
    assert ids(site.editor.get("/wp/v2/media", params={"search": f"{token}-shot"})) == [r.json()["id"]]
    assert ids(site.editor.get("/wp/v2/media", params={"search": f"{token} png"})) == [r.json()["id"]]


def test_media_operation_key_and_delete(site: Site) -> None:
    token = site.token
    r = multipart_upload(site.editor, f"{token}.png", fields={"meta[operation_key]": f"{token}/img"})
    assert r.status_code == 201 and r.json()["meta"] == {"operation_key": f"{token}/img"}
    found = site.editor.get("/wp/v2/media", params={"operation_key": f"{token}/img"})
    assert ids(found) == [r.json()["id"]]
    error(site.editor.delete(f"/wp/v2/media/{r.json()['id']}"), 501, "rest_trash_not_supported")
    gone = site.editor.delete(f"/wp/v2/media/{r.json()['id']}", params={"force": "true"})
    assert gone.status_code == 200 and gone.json()["deleted"] is True
