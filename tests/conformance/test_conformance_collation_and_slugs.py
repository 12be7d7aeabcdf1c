"""What the database's collation and core's slug rules do, on the fake as on a real WordPress 6.1:
the operation-key lookup ignores case, accents and trailing spaces (a ``meta_query`` compares in
``utf8mb4_unicode_520_ci``, PAD SPACE), and so does search; a slug loses its accents, keeps other
letters percent-encoded, and never takes a number (a date archive under ``/%postname%/``), a feed's
name or ``embed``. A real site keeps what earlier runs made: each case names its content with a
fresh token, and where an earlier run could have taken a suffix first, says which suffixes it takes."""

from __future__ import annotations

import re
import zlib

import pytest

from _conformance import Site, ids, multipart_upload, post


@pytest.mark.parametrize("asked", ["{t}-job/V1/Draft", "{t}-JOB/v1/draft ", "{t}-jöb/v1/dräft", " {t}-job/v1/draft",
                                   "\t{t}-job/v1/draft\n"])
def test_the_operation_key_lookup_ignores_case_accents_and_trailing_spaces(site: Site, asked: str) -> None:
    token = site.token
    mine = post(site.editor, title=f"{token} keyed", meta={"operation_key": f"{token}-Job/v1/draft"})
    found = site.editor.get("/wp/v2/posts", params={"operation_key": asked.format(t=token), "status": "any",
                                                    "context": "edit"})
    assert found.status_code == 200 and ids(found) == [mine["id"]], found.text[:300]
    other = site.editor.get("/wp/v2/posts", params={"operation_key": f"{token}-job/v1/drafts", "status": "any"})
    assert ids(other) == []  # a different key is still a different key


def test_the_media_operation_key_lookup_ignores_case_too(site: Site) -> None:
    token = site.token
    r = multipart_upload(site.editor, f"{token}.png", fields={"meta[operation_key]": f"{token}/Media:One"})
    assert r.status_code == 201
    assert ids(site.editor.get("/wp/v2/media", params={"operation_key": f"{token}/media:one "})) == [r.json()["id"]]


def test_search_ignores_accents_and_case(site: Site) -> None:
    token = site.token
    mine = post(site.editor, title=f"{token} Crème brûlée")
    assert ids(site.editor.get("/wp/v2/posts", params={"search": f"{token} CREME brulee", "status": "any"})) == [mine["id"]]


def _fresh_number(site: Site) -> str:
    """A number no earlier run used as a title: from the run's id and the token."""
    return str(10**11 + zlib.crc32(site.token.encode()) % 10**11)


def test_a_number_never_becomes_a_posts_slug_a_date_archive_would_take(site: Site) -> None:
    number = _fresh_number(site)
    published = post(site.editor, title=number, status="publish")
    assert published["slug"] == f"{number}-2"
    assert ids(site.editor.get("/wp/v2/posts", params={"slug": number})) == []
    assert ids(site.editor.get("/wp/v2/posts", params={"slug": f"{number}-2"})) == [published["id"]]
    asked = post(site.editor, title="x", slug=number, status="publish")  # asking for it does not help
    assert asked["slug"] != number and asked["slug"].startswith(f"{number}-")


@pytest.mark.parametrize("word", ["Feed", "embed", "RSS2"])
def test_a_feeds_name_or_embed_is_never_a_slug(site: Site, word: str) -> None:
    published = post(site.editor, title=word, status="publish")
    # A real site may hold "feed-2" from an earlier run: the suffix is the next free one, never none.
    assert re.fullmatch(rf"{word.lower()}-[0-9]+", published["slug"]), published["slug"]
    if site.kind == "fake":
        assert published["slug"] == f"{word.lower()}-2"


@pytest.mark.parametrize(("title", "slug"), [
    ("Straße {t}", "strase-{t}"),
    ("Crème brûlée {t}", "creme-brulee-{t}"),
    ("日本語 {t}", "%e6%97%a5%e6%9c%ac%e8%aa%9e-{t}"),
    ("🚀 {t}", "%f0%9f%9a%80-{t}"),
    ("Read first — then “continue” {t}", "read-first-then-continue-{t}"),
    # What a real site answered, title by title (letters of many scripts, signs, invisible spaces):
    ("Đà Nẵng – ½ cup {t}", "da-nang-%c2%bd-cup-{t}"),
    ("Łódź & Þorn {t}", "lodz-thorn-{t}"),
    ("¿Qué? ¡Sí! «oui» {t}", "que-si-oui-{t}"),
    ("x² × 3 ÷ 4 {t}", "x%c2%b2-x-3-%c3%b7-4-{t}"),
    ("50% off: 100 € {t}", "50-off-100-e-{t}"),
    ("a/b.c\\d {t}", "a-b-cd-{t}"),
    ("zero\u200bwidth\u00a0nbsp {t}", "zerowidth-nbsp-{t}"),
    ("<b>Bold</b> ‘quote’ “dq” {t}", "bold-quote-dq-{t}"),
    ("İstanbul ıiI {t}", "istanbul-iii-{t}"),
    ("한국어 עברית {t}", "%ed%95%9c%ea%b5%ad%ec%96%b4-%d7%a2%d7%91%d7%a8%d7%99%d7%aa-{t}"),
    ("👍🏽 © ® ™ ° {t}", "%f0%9f%91%8d%f0%9f%8f%bd-{t}"),
    ("ﬁle № 5 {t}", "%ef%ac%81le-%e2%84%96-5-{t}"),
    ("a\u2028b\u2029c\u205fd\u3000e\u2007f {t}", "a-b-c%e2%81%9fd%e3%80%80e-f-{t}"),  # which spaces become dashes
])
def test_a_slug_drops_accents_and_percent_encodes_other_letters(site: Site, title: str, slug: str) -> None:
    token = site.token
    published = post(site.editor, title=title.format(t=token), status="publish")
    assert published["slug"] == slug.format(t=token)
    assert ids(site.editor.get("/wp/v2/posts", params={"slug": slug.format(t=token)})) == [published["id"]]


def test_two_titles_in_other_scripts_get_two_slugs(site: Site) -> None:
    token = site.token
    a = post(site.editor, title=f"日本 {token}", status="publish")
    b = post(site.editor, title=f"中文 {token}", status="publish")
    assert a["slug"] != b["slug"] and not a["slug"].endswith("-2") and not b["slug"].endswith("-2")


def test_a_key_stored_with_leading_spaces_is_never_found(site: Site) -> None:
    """The key asked for is trimmed; the stored one keeps its leading spaces, which count."""
    token = site.token
    post(site.editor, title=f"{token} padded", meta={"operation_key": f"  {token}/v1/draft"})
    for asked in (f"  {token}/v1/draft", f"{token}/v1/draft"):
        assert ids(site.editor.get("/wp/v2/posts", params={"operation_key": asked, "status": "any"})) == []


# Letters the collation takes as equal, or not, as a real site's database answered them.
COLLATED = [("Straße", "strasse", True), ("Œuvre", "oeuvre", True), ("Æther", "aether", False), ("Øre", "ore", False),
            ("Łódź", "lodz", False), ("İ", "i", True), ("ı", "i", False), ("ﬁle", "file", True), ("Ω", "ω", True),
            ("Å", "a", True), ("ä", "ae", False), ("½", "1/2", False), ("ß", "s", False), ("Ａ", "a", True)]


@pytest.mark.parametrize(("stored", "asked", "found"), COLLATED, ids=[f"{a}-{b}" for a, b, _ in COLLATED])
def test_which_letters_the_key_lookup_takes_as_equal(site: Site, stored: str, asked: str, found: bool) -> None:
    token = site.token
    mine = post(site.editor, title=f"{token} letters", meta={"operation_key": f"{token}/{stored}"})
    answer = ids(site.editor.get("/wp/v2/posts", params={"operation_key": f"{token}/{asked}", "status": "any"}))
    assert (answer == [mine["id"]]) is found, answer


@pytest.mark.parametrize(("title", "slug", "generated"), [
    ("{n}", None, "{n}-2"),  # the slug it would get on publish: a number is a date archive's
    ("x {t}", "feed", "x-{t}"),  # its title's, whatever slug the draft was given
    ("東京 {t}", None, "東京-{t}"),  # decoded: the letters as written, not percent-encoded
])
def test_a_drafts_generated_slug_is_its_titles_as_on_publish(site: Site, title: str, slug: str | None,
                                                              generated: str) -> None:
    fill = {"t": site.token, "n": _fresh_number(site)}
    draft = post(site.editor, title=title.format(**fill), **({"slug": slug} if slug else {}))
    got = site.editor.get(f"/wp/v2/posts/{draft['id']}", params={"context": "edit"}).json()
    assert got["generated_slug"] == generated.format(**fill), got
    if slug is None:
        assert got["slug"] == ""  # a draft has no slug until it is published or given one
