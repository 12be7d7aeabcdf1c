"""``/wp/v2/media`` and ``/wp/v2/media/<id>``: the attachments controller of core.

Uploads come as a raw body (``Content-Type`` + ``Content-Disposition: attachment;
filename="x.png"``) or as multipart with the file part named ``file`` and the fields ``title``,
``alt_text``, ``caption``, ``description``, ``post`` and ``meta[...]`` (``meta[...]`` may also be
query parameters, which is the only place for them with a raw upload). Errors carry core's codes:
400 for missing data or headers, 412 for a wrong ``Content-MD5`` (raw or multipart), 500 for a
disallowed type (``rest_upload_sideload_error`` raw, ``rest_upload_unknown_error`` multipart) and
for a multipart file over ``upload_max_filesize``. A multipart body over ``post_max_size`` reaches
WordPress without its parts (PHP drops them), so it is read as a raw upload without a
``Content-Disposition``: 400. Raw uploads have no size limit (PHP applies none to them). The file
name is sanitised as core does; a multipart name loses its directories first (PHP keeps only the
base name), a raw one does not (``../../x.png`` becomes ``x.png`` glued on: ``..x.png`` -> ``x.png``).
A success is 201 with ``Location`` and ``X-WP-Upload-Attachment-ID``; the same file name again
becomes ``x-1.png``. Media cannot be trashed (``MEDIA_TRASH`` is off): delete needs ``force=true``.
An ``id`` in the body or the query names the item acted on, as for posts.

What it deliberately does not do: ``post-process``/sub-size regeneration, editing images, or
metadata of audio and video files.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from durable_harness.wire import Request, Response
from durable_harness.fakes.wordpress._api import Api, rich_text, target_id
from durable_harness.fakes.wordpress._auth import User
from durable_harness.fakes.wordpress._errors import WPError, auth_required
from durable_harness.fakes.wordpress._images import check_type, dimensions, sanitize_file_name
from durable_harness.fakes.wordpress._params import Validator, php_empty, request_params
from durable_harness.fakes.wordpress._query import CONTEXTS
from durable_harness.fakes.wordpress._records import Item, MediaFile, PostChange

__all__ = ["MediaRoutes"]

_NOT_ALLOWED = "Sorry, you are not allowed to upload this file type."
_TOO_BIG = "The uploaded file exceeds the upload_max_filesize directive in php.ini."


def _as_php_sees_it(name: str) -> str:
    """Header bytes reach PHP as they were sent: undo a Latin-1 reading of UTF-8 (an ASGI server's)."""
    try:
        return name.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return name


def _php_basename(name: str) -> str:
    """What PHP keeps of a multipart file name: the part after the last ``/`` or ``\\``."""
    return name.replace("\\", "/").rsplit("/", 1)[-1]


def _disposition_filename(header: str) -> str | None:
    """``get_filename_from_disposition``: only ``filename=`` is read; quotes are removed."""
    filename = None
    for value in header.split(","):
        _, semi, attributes = value.strip().partition(";")
        if not semi:
            continue
        for part in attributes.split(";"):
            key, eq, val = part.partition("=")
            if eq and key.strip() == "filename" and val.strip():
                name = val.strip()
                filename = name[1:-1] if len(name) >= 2 and name[0] == name[-1] == '"' else name
    return filename or None


def _read_change(params: Mapping[str, Any], v: Validator) -> PostChange:
    return PostChange(
        title=rich_text(params.get("title"), raw_must_be_non_empty=True),
        excerpt=rich_text(params.get("caption")),
        content=rich_text(params.get("description")),
        alt_text=v.string("alt_text", params.get("alt_text")),
        parent=v.integer("post", params.get("post")),
        slug=v.string("slug", params.get("slug")),
        author=v.integer("author", params.get("author")),
        comment_status=v.enum("comment_status", params.get("comment_status") or None, ("open", "closed")),
        ping_status=v.enum("ping_status", params.get("ping_status") or None, ("open", "closed")),
        meta=v.object("meta", params.get("meta")),
    )


class MediaRoutes:
    def __init__(self, api: Api) -> None:
        self._api = api

    def _readable(self, item: Item, user: User | None) -> bool:
        if user is not None or item.parent == 0:
            return True
        parent = self._api.state.get(item.parent)
        return parent is None or parent.status == "publish"

    def _check_parent(self, parent: int | None) -> None:
        if not parent:
            return
        target = self._api.state.get(parent)
        if target is None:  # edit_post on a missing post maps to do_not_allow
            raise auth_required("rest_cannot_edit", "Sorry, you are not allowed to upload media to this post.", True)
        if target.type == "attachment":
            raise WPError("rest_invalid_param", "Invalid parent type.", 400)

    def list(self, request: Request) -> Response:
        return self._api.list_response(request, type_="attachment", route="/wp/v2/media", render=self._list_body)

    def _list_body(self, items: Sequence[Item], context: str, user: User | None) -> Sequence[dict[str, Any]]:
        return [self._api.renderer.attachment(i, context) for i in items if self._readable(i, user)]

    def get(self, request: Request, id: str) -> Response:
        params = request_params(request)
        v = Validator()
        media_id = target_id(params, id, v)
        context = v.enum("context", params.get("context", "view"), CONTEXTS) or "view"
        v.done()
        item = self._api.existing(media_id, "attachment")
        user = self._api.user(request)
        if context == "edit" and user is None:
            raise auth_required("rest_forbidden_context", "Sorry, you are not allowed to edit this post.", False)
        if not self._readable(item, user):
            raise auth_required("rest_forbidden", "Sorry, you are not allowed to do that.", False)
        alternate = f'<{self._api.renderer.link(item)}>; rel="alternate"; type=text/html'
        return self._api.respond(request, 200, self._api.renderer.attachment(item, context), links=[alternate])

    def create(self, request: Request) -> Response:
        params = request_params(request)
        v = Validator()
        change = _read_change(params, v)
        v.done()
        if not php_empty(params.get("id")):
            raise WPError("rest_post_exists", "Cannot create existing post.", 400)
        user = self._api.user(request)
        if user is None:
            raise auth_required("rest_cannot_create", "Sorry, you are not allowed to create posts as this user.", False)
        self._check_parent(change.parent)
        file = self._read_upload(request)
        item, late_error = self._api.state.upload(file, change, by=self._api.label(request), author=user.id)
        if late_error is not None:
            raise late_error  # the attachment exists; core reports the meta error anyway
        location = self._api.site.rest_url(f"/wp/v2/media/{item.id}")
        body = self._api.renderer.attachment(item, "edit")
        return self._api.respond(request, 201, body, headers={
            "Location": location, "X-WP-Upload-Attachment-ID": str(item.id)})

    def _read_upload(self, request: Request) -> MediaFile:
        dropped = len(request.body) > self._api.post_max_size  # PHP parses no parts of such a body
        if request.content_type == "multipart/form-data" and not dropped:
            _, files = request.form()
            if not files:  # PHP gives no raw body for multipart: "No data supplied."
                raise WPError("rest_upload_no_data", "No data supplied.", 400)
            if "file" not in files:
                raise WPError("rest_upload_unknown_error", "Specified file failed upload test.", 500)
            original, _, data = files["file"]
            original = _php_basename(_as_php_sees_it(original))
            expected_md5 = request.header("content-md5")
            if expected_md5 and hashlib.md5(data, usedforsecurity=False).hexdigest() != expected_md5.strip().lower():
                raise WPError("rest_upload_hash_mismatch", "Content hash did not match expected.", 412)
            if len(data) > self._api.upload_max_filesize:
                raise WPError("rest_upload_unknown_error", _TOO_BIG, 500)
            if not data:
                raise WPError("rest_upload_unknown_error", "File is empty. Please upload something more substantial. "
                              "This error could also be caused by uploads being disabled in your php.ini or by "
                              "post_max_size being defined as smaller than upload_max_filesize in php.ini.", 500)
            error_code = "rest_upload_unknown_error"
        else:
            data = request.body
            if not data:
                raise WPError("rest_upload_no_data", "No data supplied.", 400)
            if not request.header("content-type"):
                raise WPError("rest_upload_no_content_type", "No Content-Type supplied.", 400)
            disposition = request.header("content-disposition")
            if not disposition:
                raise WPError("rest_upload_no_content_disposition", "No Content-Disposition supplied.", 400)
            filename = _disposition_filename(disposition)
            if filename is None:
                raise WPError("rest_upload_invalid_disposition", "Invalid Content-Disposition supplied. "
                              "Content-Disposition needs to be formatted as `attachment; filename=\"image.png\"` "
                              "or similar.", 400)
            expected_md5 = request.header("content-md5")
            if expected_md5 and hashlib.md5(data, usedforsecurity=False).hexdigest() != expected_md5.strip().lower():
                raise WPError("rest_upload_hash_mismatch", "Content hash did not match expected.", 412)
            original, error_code = _as_php_sees_it(filename), "rest_upload_sideload_error"
        checked = check_type(sanitize_file_name(original), data)
        if checked is None:
            raise WPError(error_code, _NOT_ALLOWED, 500)
        name, mime = checked
        width, height = dimensions(data, mime)
        return MediaFile(name=name, original_name=original, folder="", mime=mime, data=data, width=width, height=height)

    def update(self, request: Request, id: str) -> Response:
        params = request_params(request)
        v = Validator()
        media_id = target_id(params, id, v)
        change = _read_change(params, v)
        v.done()
        item = self._api.existing(media_id, "attachment")
        user = self._api.user(request)
        if user is None:
            raise auth_required("rest_cannot_edit", "Sorry, you are not allowed to edit this post.", False)
        if change.parent and (target := self._api.state.get(change.parent)) is not None and target.type == "attachment":
            raise WPError("rest_invalid_param", "Invalid parent type.", 400)
        late_error = self._api.state.update(item, change, by=self._api.label(request))
        if late_error is not None:
            raise late_error
        return self._api.respond(request, 200, self._api.renderer.attachment(item, "edit"))

    def delete(self, request: Request, id: str) -> Response:
        params = request_params(request)
        v = Validator()
        media_id = target_id(params, id, v)
        force = v.boolean("force", params.get("force"))
        v.done()
        item = self._api.existing(media_id, "attachment")
        if self._api.user(request) is None:
            raise auth_required("rest_cannot_delete", "Sorry, you are not allowed to delete this post.", False)
        if not force:
            raise WPError("rest_trash_not_supported", "The post does not support trashing. Set 'force=true' to delete.", 501)
        previous = self._api.renderer.attachment(item, "edit")
        self._api.state.delete(item, by=self._api.label(request))
        return self._api.respond(request, 200, {"deleted": True, "previous": previous})
