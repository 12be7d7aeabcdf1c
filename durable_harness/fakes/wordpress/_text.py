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

__all__ = ["auto_excerpt", "render_content", "render_text", "sanitize_text", "sanitize_title", "strip_tags"]

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


def sanitize_title(title: str) -> str:
    """``sanitize_title`` in the save context: the slug a title or a requested slug becomes."""
    text = unicodedata.normalize("NFKD", strip_tags(title)).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"&.+?;", "", text.lower()).replace(".", "-")
    text = re.sub(r"[^a-z0-9 _-]", "", text)
    text = re.sub(r"\s+", "-", text)
    return re.sub(r"-+", "-", text).strip("-")


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
