"""A request a candidate in its own process sends as data is read by the gate as the same request
made with httpx would be read in-process (``sent_request`` against ``_read`` of an
``httpx.Request``), and the headers it gets back are those httpx would hand it
(``answer_headers`` against ``_to_httpx``): the two drivers give one history byte for byte."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from durable_harness.harness._gate import _read, _to_httpx, answer_headers, sent_request
from durable_harness.wire import Response

# Pieces of URLs: what a client writes (httpx's own str of a URL), and what a hostile child could
# write instead (spaces, fragments, percent signs, characters httpx quotes, non-ASCII, upper case).
_PIECE = st.lists(st.sampled_from([*"aZ09-._~/%?=&+#|[]{}\"<> \t\u00e9\u20ac\\^`:@!$'()*,;", "%2F", "%zz", "%41"]),
                  max_size=24).map("".join)
_HOST = st.sampled_from(["sessions.test", "Sessions.Test", "wp.test:8080", "wp.test:", "xn--bcher-kva.test", "[::1]",
                         "b\u00fccher.test", ""])
_SCHEME = st.sampled_from(["http", "https", "HTTP", "ftp"])
_NAME = st.sampled_from(["Content-Type", "content-type", "X-Fencing-Token", "Idempotency-Key", "host", "x-\u00e9"])
_VALUE = st.text(alphabet=st.sampled_from(list("ab ;=,\"\u00e9")), max_size=6)
_HEADERS = st.lists(st.tuples(_NAME, _VALUE), max_size=5)
_METHOD = st.sampled_from(["GET", "post", "PUT", "DELETE", "PATCH"])


def _outcome(fn: Any) -> Any:
    try:
        return "ok", fn()
    except (ValueError, httpx.InvalidURL) as err:
        return "error", type(err).__name__


def _as_httpx(method: str, url: str, headers: list[tuple[str, str]], body: bytes) -> tuple[str, Any]:
    raw = httpx.Request(method, url, headers=headers, stream=httpx.ByteStream(body))
    return raw.url.host, _read(raw, 1.5)


def _as_data(method: str, url: str, headers: list[tuple[str, str]], body: bytes) -> tuple[str, Any]:
    host, read = sent_request(method, url, headers, body)
    return host, read(1.5)


@settings(max_examples=600, deadline=None)
@given(_METHOD, _SCHEME, _HOST, _PIECE, _HEADERS, st.binary(max_size=8))
def test_a_request_sent_as_data_is_read_as_httpx_reads_it(method: str, scheme: str, host: str, rest: str,
                                                          headers: list[tuple[str, str]], body: bytes) -> None:
    url = f"{scheme}://{host}/{rest}"
    expected = _outcome(lambda: _as_httpx(method, url, headers, body))
    assert _outcome(lambda: _as_data(method, url, headers, body)) == expected


@settings(max_examples=300, deadline=None)
@given(_METHOD, _PIECE, st.dictionaries(st.sampled_from(["a b", "q", "x\u00e9", "k"]), _VALUE, max_size=3), _HEADERS)
def test_a_url_as_a_client_writes_it_is_read_alike(method: str, path: str, params: dict[str, str],
                                                   headers: list[tuple[str, str]]) -> None:
    """The URLs a candidate's own httpx sends (``str(request.url)``), which the fast path takes."""
    made = _outcome(lambda: httpx.Request(method, "http://sessions.test/v1/" + path.replace("#", ""), params=params))
    assume(made[0] == "ok")  # what httpx refuses to make, no client sends
    url = str(made[1].url)
    ascii_headers = [(k, v) for k, v in headers if k.isascii() and v.isascii()]
    assert _as_data(method, url, ascii_headers, b"{}") == _as_httpx(method, url, ascii_headers, b"{}")


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_NAME, _VALUE, max_size=4), st.binary(max_size=6), st.booleans(), st.integers(100, 599))
def test_the_answers_headers_are_those_httpx_hands_over(headers: dict[str, str], body: bytes, streamed: bool,
                                                       status: int) -> None:
    response = Response(status, headers, body, stream=(lambda: iter([b"data: {}\n\n"])) if streamed else None)
    handed = lambda: _to_httpx(response, httpx.Request("GET", "http://t/")).headers.multi_items()  # noqa: E731
    expected = _outcome(lambda: [[k, v] for k, v in handed()])
    assert _outcome(lambda: answer_headers(response)) == expected


@pytest.mark.parametrize("url", ["http://sessions.test/v1/beta/agents/sessions?limit=100&after=sess_1",
                                 "http://wp.test/wp-json/wp/v2/posts/12", "https://sessions.test"])
def test_plain_urls_are_read_without_httpx(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _as_httpx("GET", url, [("accept", "application/json")], b"")
    monkeypatch.setattr(httpx, "Request", None)  # the fast path must not need it
    assert _as_data("GET", url, [("accept", "application/json")], b"") == expected
