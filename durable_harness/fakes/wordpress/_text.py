"""Text transforms of WordPress core that show on the wire: slugs, rendered HTML, auto excerpts.

``sanitize_title`` (slugs), a small ``wptexturize`` (``&`` to ``&#038;``, curly quotes, ellipsis),
``wpautop`` (paragraphs and ``<br />``), block-comment stripping and ``wp_trim_excerpt``
(55 words + `` [&hellip;]``). Good enough that rendered fields look like a real site's.

What it deliberately does not do: reproduce wptexturize's full rule set, shortcodes, embeds,
smilies or kses; rendered fields are approximations and the raw fields are what clients rely on.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["auto_excerpt", "collate", "fold", "remove_accents", "render_content", "render_text", "sanitize_text",
           "sanitize_title", "strip_tags"]

_BLOCK_START = re.compile(r"^\s*<(?:p|div|h[1-6]|ul|ol|li|figure|blockquote|pre|table|hr|section|!--)[\s>/]", re.I)
_BLOCK_COMMENT = re.compile(r"<!-- /?wp:.*?-->", re.S)
_EXCERPT_WORDS = 55


def strip_tags(text: str) -> str:
    """``wp_strip_all_tags`` without the whitespace collapsing."""
    text = re.sub(r"<(script|style)[^>]*?>.*?</\1>", "", text, flags=re.S | re.I)
    return re.sub(r"<[^>]*>", "", text)


def sanitize_text(text: str) -> str:
    """``sanitize_text_field``: no tags, no line breaks, single spaces, trimmed."""
    return re.sub(r"\s+", " ", strip_tags(text)).strip()


# ``remove_accents``: letters its table maps to something other than their base letter.
_ACCENTS = {"ß": "s", "æ": "ae", "Æ": "AE", "ø": "o", "Ø": "O", "œ": "oe", "Œ": "OE", "đ": "d", "Đ": "D", "ð": "d",
            "Ð": "D", "ł": "l", "Ł": "L", "þ": "th", "Þ": "TH", "ħ": "h", "Ħ": "H", "ı": "i", "ĸ": "k", "ŀ": "l",
            "Ŀ": "L", "ŉ": "N", "ŋ": "n", "Ŋ": "N", "ſ": "s", "ŧ": "t", "Ŧ": "T", "ĳ": "ij", "Ĳ": "IJ", "ª": "a",
            "º": "o", "€": "E", "£": ""}
# ``sanitize_title_with_dashes`` in the save context, on the percent-encoded UTF-8 of the title.
_DASHED = ("%c2%a0", "%e2%80%93", "%e2%80%94") + tuple(f"%e2%80%{b:02x}" for b in range(0x80, 0x8b)) + (
    "%e2%80%a8", "%e2%80%a9", "%e2%80%af")  # the spaces of U+2000..U+200A, the line and paragraph separators
_STRIPPED = ("%c2%ad", "%c2%a1", "%c2%bf", "%c2%ab", "%c2%bb", "%e2%80%b9", "%e2%80%ba", "%e2%80%98", "%e2%80%99",
             "%e2%80%9c", "%e2%80%9d", "%e2%80%9a", "%e2%80%9b", "%e2%80%9e", "%e2%80%9f", "%e2%80%a2", "%c2%a9",
             "%c2%ae", "%c2%b0", "%e2%80%a6", "%e2%84%a2", "%c2%b4", "%cb%8a", "%cc%81", "%cd%81", "%cc%80", "%cc%84",
             "%cc%8c", "%e2%80%8b", "%e2%80%8c", "%e2%80%8d", "%e2%80%8e", "%e2%80%8f", "%e2%80%aa", "%e2%80%ab",
             "%e2%80%ac", "%e2%80%ad", "%e2%80%ae", "%ef%bb%bf", "%ef%bf%bc")
_SLUG_BYTES = 200


def remove_accents(text: str) -> str:
    """Latin letters with accents as their base letters (``ö`` to ``o``, ``ß`` to ``s``), as core's
    table does; every other character (CJK, emoji, Greek) as it is."""
    out = []
    for ch in text:
        if ord(ch) < 128:
            out.append(ch)
        elif ch in _ACCENTS:
            out.append(_ACCENTS[ch])
        else:
            parts = unicodedata.normalize("NFD", ch)
            base = parts[0]
            latin = base.isascii() and base.isalpha() and all(unicodedata.combining(c) for c in parts[1:])
            out.append(base if latin and len(parts) > 1 else ch)
    return "".join(out)


def _uri_encode(text: str) -> str:
    """``utf8_uri_encode(…, 200)``: every non-ASCII character as its UTF-8 octets, ``%xx``, at most
    200 characters of output (a character that does not fit whole is left out, and the rest)."""
    out, size = [], 0
    for ch in text:
        piece = ch if ord(ch) < 128 else "".join(f"%{b:02x}" for b in ch.encode("utf-8"))
        if size + len(piece) > _SLUG_BYTES:
            break
        out.append(piece)
        size += len(piece)
    return "".join(out)


def sanitize_title(title: str) -> str:
    """``sanitize_title`` in the save context: the slug a title or a requested slug becomes. Accents
    are removed (``Straße`` is ``strase``), other letters percent-encoded (a CJK or emoji title keeps
    a slug of its own: ``%e6%97%a5%e6%9c%ac``), punctuation core knows dropped or made a dash."""
    text = strip_tags(remove_accents(title))
    text = re.sub(r"%([a-fA-F0-9]{2})", r"---\1---", text).replace("%", "")
    text = re.sub(r"---([a-fA-F0-9]{2})---", r"%\1", text)
    text = _uri_encode(text.lower()).lower()
    for seq in _DASHED:
        text = text.replace(seq, "-")
    for entity in ("&nbsp;", "&#160;", "&ndash;", "&#8211;", "&mdash;", "&#8212;"):
        text = text.replace(entity, "-")
    text = text.replace("/", "-")
    for seq in _STRIPPED:
        text = text.replace(seq, "")
    text = text.replace("%c3%97", "x")
    text = re.sub(r"&.+?;", "", text).replace(".", "-")
    text = re.sub(r"[^%a-z0-9 _-]", "", text)
    text = re.sub(r"\s+", "-", text)
    return re.sub(r"-+", "-", text).strip("-")


def collate(text: str) -> str:
    """The key a MySQL ``utf8mb4_unicode_520_ci`` column compares by: case and accents ignored
    (``Jöb-1`` equals ``job-1``; ``ß`` equals ``ss``), trailing spaces ignored (PAD SPACE). An
    approximation of the collation (Unicode's full tables are not reproduced) that agrees with it on
    what operation keys and searches are made of."""
    return fold(text).rstrip(" ")


# Letters the collation expands where Unicode's decompositions do not (measured against a real
# site: ``Œuvre`` finds ``oeuvre``; ``Æther`` does not find ``aether``, nor ``Øre`` ``ore``).
_EXPANDS = str.maketrans({"œ": "oe"})


def fold(text: str) -> str:
    """Case and accents folded away, as the collation compares within ``LIKE`` (a search)."""
    parts = unicodedata.normalize("NFKD", text)
    return "".join(c for c in parts if not unicodedata.combining(c)).casefold().translate(_EXPANDS)


def texturize(text: str) -> str:
    text = re.sub(r"&(?!#?\w+;)", "&#038;", text)
    text = text.replace("...", "&#8230;").replace(" -- ", " &#8212; ").replace(" - ", " &#8211; ")
    text = re.sub(r"(\w)'(\w)", r"\1&#8217;\2", text)
    return re.sub(r'"([^"<>]*)"', r"&#8220;\1&#8221;", text)


def render_text(text: str) -> str:
    """A rendered title: texturized, trimmed."""
    return texturize(text.strip())


def autop(text: str) -> str:
    text = text.replace("\r\n", "\n").strip()
    if not text:
        return ""
    out = []
    for para in re.split(r"\n\s*\n", text):
        para = para.strip()
        if not para:
            continue
        out.append(para if _BLOCK_START.match(para + " ") else "<p>" + para.replace("\n", "<br />\n") + "</p>")
    return "\n".join(out) + "\n"


def render_content(raw: str) -> str:
    """``the_content``: blocks are rendered as their HTML (comments dropped), classic text gets wpautop."""
    if "<!-- wp:" in raw:
        return _BLOCK_COMMENT.sub("", raw)
    return autop(raw)


def auto_excerpt(raw_excerpt: str, raw_content: str) -> str:
    """``the_excerpt``: the raw excerpt with autop, or the first 55 words of the content + ``[&hellip;]``."""
    if raw_excerpt.strip():
        return autop(texturize(raw_excerpt))
    words = strip_tags(render_content(raw_content)).split()
    if not words:
        return ""
    text = " ".join(words[:_EXCERPT_WORDS])
    if len(words) > _EXCERPT_WORDS:
        text += " [&hellip;]"
    return autop(texturize(text))
