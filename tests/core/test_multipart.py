"""The multipart reader gives what ``email.parser`` gives, for every body: the plain form clients
write (read directly) and anything else (handed to ``email``), including bodies cut or garbled."""

from __future__ import annotations

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from durable_harness.wire import Request
from durable_harness.wire._multipart import _email_form, _plain_form, parse_form

_names = st.one_of(st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7e), max_size=12),
                   st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12))
_payloads = st.one_of(st.binary(max_size=64), st.sampled_from([b"", b"\r\n", b"--", b"\r\n--x\r\n", b"a\rb\nc\r\n"]))
_types = st.sampled_from(["image/png", "IMAGE/PNG", "text/plain; charset=utf-8", "application/octet-stream",
                          "weird", "a/b/c", "image/png; name=\"n.png\"", "multipart/mixed", "message/rfc822"])


def _outcome(fn: object, content_type: str, body: bytes) -> object:
    try:
        return fn(content_type, body)  # type: ignore[operator]
    except Exception as err:  # both must fail alike
        return type(err).__name__


def _encoded(fields: dict[str, str], files: list[tuple[str, str, str, bytes]]) -> tuple[str, bytes]:
    request = httpx.Request("POST", "http://x/", data=fields or None,
                            files=[(name, (filename, data, ctype)) for name, filename, ctype, data in files] or None)
    return request.headers.get("content-type", ""), request.read()


@pytest.mark.slow  # a property sweep of seconds: `make test` runs it
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_names, _names, max_size=3),
       st.lists(st.tuples(_names, _names, _types, _payloads), max_size=3))
def test_what_clients_send_reads_as_email_reads_it(fields: dict[str, str], files: list[tuple[str, str, str, bytes]]) -> None:
    content_type, body = _encoded(fields, files)
    if not content_type.startswith("multipart/"):
        return
    assert _outcome(parse_form, content_type, body) == _outcome(_email_form, content_type, body)


@pytest.mark.slow  # a property sweep of seconds: `make test` runs it
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_garbled_bodies_read_as_email_reads_them(data: st.DataObject) -> None:
    content_type, body = _encoded({"title": "Chart", "alt": "x"}, [("file", "a.png", "image/png", b"\x89PNG\r\n\x1a\n")])
    edits = data.draw(st.lists(st.tuples(st.integers(0, len(body)), st.integers(0, 4),
                                         st.sampled_from([b"", b"\r", b"\n", b"\r\n", b"--", b" ", b"\"", b";", b"\\", b"=?",
                                                          b"*", b"<", b">", b"\xff"])), max_size=3))
    for at, cut, insert in edits:
        body = body[:at] + insert + body[at + cut:]
    assert _outcome(parse_form, content_type, body) == _outcome(_email_form, content_type, body)


def test_the_plain_form_is_read_directly() -> None:
    content_type, body = _encoded({"title": "Chart"}, [("file", "chart.png", "image/png", b"\x89PNG\r\n--\r\n")])
    assert _plain_form(content_type, body) == ({"title": "Chart"}, {"file": ("chart.png", "image/png", b"\x89PNG\r\n--\r\n")})


def test_a_request_parses_its_body_once() -> None:
    content_type, body = _encoded({"title": "Chart"}, [("file", "chart.png", "image/png", b"png")])
    request = Request.build("POST", "/wp/v2/media", headers={"content-type": content_type}, body=body)
    fields, files = request.form()
    fields["title"] = "changed by a caller"
    assert request.form() == ({"title": "Chart"}, {"file": ("chart.png", "image/png", b"png")})
