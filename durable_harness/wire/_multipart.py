"""multipart/form-data bodies: fields and files, as the standard library's ``email`` parser reads them.

Clients (httpx, browsers, most SDKs) write one plain form: ``--boundary`` CRLF, a
``Content-Disposition: form-data; name="..."[; filename="..."]`` and maybe a ``Content-Type`` per
part, quoted names without escapes, CRLF before each delimiter, a closing ``--boundary--``. That
form is read here directly, in a few byte scans. Anything else (a preamble, folded or encoded
headers, RFC 2231 parameters, escapes in quotes, a transfer encoding, a delimiter with trailing
blanks, a body that never closes, a boundary also found inside a part) is handed to ``email.parser``
with the HTTP policy, so every body yields exactly what that parser yields.

What it deliberately does not do: stream, bound sizes (callers do), or accept what ``email`` would
not; nested multipart parts are read as the ``email`` parser reads them (no payload).
"""

from __future__ import annotations

import re

__all__ = ["Form", "parse_form"]

Form = tuple[dict[str, str], dict[str, tuple[str, str, bytes]]]

_TOKEN = r"[A-Za-z0-9!#$%&'+.^_`|~-]+"  # an RFC 7230 token without "*" (RFC 2231 names take the email path)
_PARAM = re.compile(rf'\s*;\s*({_TOKEN})=(?:"([\x20\x21\x23-\x5b\x5d-\x7e]*)"|({_TOKEN}))')
_VALUE = re.compile(rf"\s*({_TOKEN}(?:/{_TOKEN})?)")
_HEADER = re.compile(rb"([A-Za-z0-9-]+):[ \t]*([\x20-\x7e]*)")


def parse_form(content_type: str, body: bytes) -> Form:
    """``({name: value}, {name: (filename, content type, bytes)})`` of a multipart/form-data body
    whose Content-Type header is ``content_type``; a later part of the same name wins."""
    fast = _plain_form(content_type, body)
    return fast if fast is not None else _email_form(content_type, body)


def _params(value: str) -> tuple[str, dict[str, str]] | None:
    """The main value and the parameters (names lower-cased, first one wins) of a header, or None
    when it is not in the plain form."""
    if "=?" in value:  # an encoded word: the email path decodes it
        return None
    head = _VALUE.match(value)
    if head is None:
        return None
    params: dict[str, str] = {}
    pos = head.end()
    while pos < len(value):
        m = _PARAM.match(value, pos)
        if m is None:
            return None if value[pos:].strip() else (head.group(1), params)
        params.setdefault(m.group(1).lower(), m.group(2) if m.group(2) is not None else m.group(3))
        pos = m.end()
    return head.group(1), params


def _plain_form(content_type: str, body: bytes) -> Form | None:
    parsed = _params(content_type)
    boundary = parsed[1].get("boundary") if parsed else None
    if not boundary or len(boundary) > 200:
        return None
    delimiter = b"--" + boundary.encode("ascii")
    if not body.startswith(delimiter):
        return None
    pieces = body[len(delimiter):].split(b"\r\n" + delimiter)
    if len(pieces) < 2 or pieces[-1] not in (b"--", b"--\r\n") or body.count(delimiter) != len(pieces):
        return None
    fields: dict[str, str] = {}
    files: dict[str, tuple[str, str, bytes]] = {}
    for piece in pieces[:-1]:
        if not piece.startswith(b"\r\n"):
            return None
        part = _part(piece[2:])
        if part is None:
            return None
        name, filename, ctype, payload = part
        if name is None:
            continue
        if filename is not None:
            files[name] = (filename, ctype, payload)
        else:
            fields[name] = payload.decode("utf-8")
    return fields, files


def _part(part: bytes) -> tuple[str | None, str | None, str, bytes] | None:
    """(name, filename, content type, payload) of one part in the plain form, or None."""
    if part.startswith(b"\r\n"):
        head, payload = b"", part[2:]
    else:
        end = part.find(b"\r\n\r\n")
        if end < 0:
            return None
        head, payload = part[:end], part[end + 4:]
    headers: dict[str, str] = {}
    for line in head.split(b"\r\n") if head else ():
        m = _HEADER.fullmatch(line)
        if m is None:
            return None
        key = m.group(1).decode("ascii").lower()
        if key in headers or key == "content-transfer-encoding":
            return None
        headers[key] = m.group(2).decode("ascii")
    ctype = "text/plain"
    type_params: dict[str, str] = {}
    if "content-type" in headers:
        parsed = _params(headers["content-type"])
        if parsed is None:
            return None
        ctype, type_params = (parsed[0].lower() if parsed[0].count("/") == 1 else "text/plain"), parsed[1]
        if ctype.split("/")[0] in ("multipart", "message"):
            return None
    if "content-disposition" not in headers:
        return None, None, ctype, payload
    disposition = _params(headers["content-disposition"])
    if disposition is None or disposition[0].lower() in ("name", "filename"):
        return None  # a main value that reads as a parameter: the email path knows what it means
    params = disposition[1]
    filename = params.get("filename")
    if filename is None and "name" in type_params:
        return None  # email falls back to the Content-Type's name: rare, let it
    if filename is not None and len(filename) > 1 and filename[0] == "<" and filename[-1] == ">":
        return None  # email unquotes a file name once more: let it
    return params.get("name"), (filename.strip() if filename is not None else None), ctype, payload


def _email_form(content_type: str, body: bytes) -> Form:
    from email.parser import BytesParser  # imported by the first multipart body, not by every command
    from email.policy import HTTP

    head = f"Content-Type: {content_type}\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + body)
    fields: dict[str, str] = {}
    files: dict[str, tuple[str, str, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            continue
        raw = part.get_payload(decode=True)
        payload = raw if isinstance(raw, bytes) else b""
        filename = part.get_filename()
        if filename is not None:
            files[name] = (filename, part.get_content_type(), payload)
        else:
            fields[name] = payload.decode("utf-8")
    return fields, files
